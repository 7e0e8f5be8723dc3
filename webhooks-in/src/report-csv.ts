import { Readable, Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { ReportRow } from '@verify-hub/sync-jobs';

export const REPORT_COLUMNS = ['contactId', 'email', 'risk', 'score', 'reason', 'outcome', 'error'] as const;

/**
 * A cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading
 * apostrophe: report values come from contact data that anyone could have typed (OWASP CSV injection).
 */
export function neutralizeFormula(value: unknown): unknown {
  return typeof value === 'string' && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** A run's per-record report as a CSV stream (header first), read lazily from the run service. */
export function reportCsv(rows: AsyncIterable<ReportRow>): Readable {
  const safe = new Transform({
    objectMode: true,
    transform(row: ReportRow, _enc, done) {
      const out: Record<string, unknown> = {};
      for (const column of REPORT_COLUMNS) out[column] = neutralizeFormula(row[column]);
      done(null, out);
    },
  });
  return Readable.from(rows).pipe(safe).pipe(stringify({ header: true, columns: [...REPORT_COLUMNS] }));
}
