import { parse } from 'csv-parse/sync';

export const DELIMITERS = [',', ';', '\t', '|'] as const;

/**
 * Picks the delimiter under which the first lines split into the most rows of the header's width
 * (more than one field), then the most fields; quotes are honoured, so commas inside quoted fields
 * do not count. A file whose lines never split is one column (`,`).
 */
export function detectDelimiter(sample: string): string {
  let best = { delimiter: ',' as string, consistent: 0, width: 1 };
  for (const delimiter of DELIMITERS) {
    let records: string[][];
    try {
      records = parse(sample, { delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, to_line: 50, skip_records_with_error: true }) as string[][];
    } catch {
      continue;
    }
    const width = records[0]?.length ?? 0;
    if (width < 2) continue;
    const consistent = records.filter((r) => r.length === width).length / records.length;
    if (consistent > best.consistent || (consistent === best.consistent && width > best.width)) best = { delimiter, consistent, width };
  }
  return best.delimiter;
}
