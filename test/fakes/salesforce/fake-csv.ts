import { parse } from 'csv-parse/sync';

/** Bulk API 2.0's CSV: a header row, every value quoted, LF line endings. */
export function toCsv(fields: string[], rows: Record<string, unknown>[]): string {
  const cell = (value: unknown) => `"${value === null || value === undefined ? '' : String(value).replace(/"/g, '""')}"`;
  return [fields.map(cell).join(','), ...rows.map((row) => fields.map((f) => cell(row[f])).join(','))].join('\n') + '\n';
}

export function fromCsv(text: string): Record<string, string>[] {
  return parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
}
