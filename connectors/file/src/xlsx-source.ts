import { createReadStream } from 'node:fs';
import { excel } from './excel';
import type { CellValue, SourceItem } from './cells';
import { checkXlsxArchive } from './file-limits';

/** Plain value of an exceljs cell: rich text and hyperlinks become their text, formulas their result. */
export function plainCell(value: unknown): CellValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value;
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) return v.richText.map((part: { text?: string }) => part.text ?? '').join('');
    if ('formula' in v || 'sharedFormula' in v) return plainCell(v.result);
    if ('text' in v) return plainCell(v.text);
    if ('error' in v) return String(v.error);
  }
  return String(value);
}

/**
 * Streams the rows of the first worksheet that has any, with exceljs's WorkbookReader (nothing loaded
 * whole; styles are read because they tell dates from numbers). Blank rows are not stored in .xlsx
 * files, so none are seen; `line` is the worksheet row number.
 */
export async function* readXlsx(path: string, onSheetName?: (name: string) => void): AsyncGenerator<SourceItem> {
  // Measured before the reader is trusted with it (file-limits.ts): a zip bomb is refused unread.
  await checkXlsxArchive(path);
  const input = createReadStream(path);
  const workbook = new (excel().stream.xlsx.WorkbookReader)(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore' });
  // exceljs names a worksheet from the workbook part (xl/workbook.xml) read before it. The zip's order is
  // the writer's choice: a valid file with that part after the sheet (its shared strings before) made the
  // reader throw "Cannot read properties of undefined (reading 'sheets')". Until the part is read, no
  // names: the rows are the same, and a sheet without a name reads as Sheet1 below.
  (workbook as unknown as { model?: { sheets?: unknown[] } }).model ??= { sheets: [] };
  try {
    for await (const worksheet of workbook) {
      let rows = 0;
      for await (const row of worksheet) {
        if (rows++ === 0) onSheetName?.((worksheet as unknown as { name?: string }).name ?? 'Sheet1');
        const values = row.values as unknown[];
        const cells: CellValue[] = [];
        for (let i = 1; i < values.length; i++) cells.push(plainCell(values[i]));
        yield { kind: 'record', cells, line: row.number };
      }
      if (rows > 0) return; // the first worksheet that has rows, only
    }
  } finally {
    input.destroy();
  }
}
