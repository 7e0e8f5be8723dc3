import { createReadStream } from 'node:fs';
import { InputError } from '@verify-hub/core';
import { excel } from './excel';
import type { CellValue, SourceItem } from './cells';
import { checkXlsxArchive } from './file-limits';
import { SHEET_DEPENDENCIES, dependenciesFirst } from './xlsx-order';

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

/** How to tell the reader has read each part a worksheet depends on. */
const READ: Record<(typeof SHEET_DEPENDENCIES)[number], (reader: ReaderState) => boolean> = {
  'xl/_rels/workbook.xml.rels': (reader) => reader.workbookRels !== undefined,
  'xl/workbook.xml': (reader) => reader.model !== NO_MODEL_YET,
  'xl/sharedStrings.xml': (reader) => reader.sharedStrings !== undefined,
  'xl/styles.xml': (reader) => reader.styles !== undefined,
};

/** What exceljs's WorkbookReader keeps of the parts it has read (not in its typings). */
interface ReaderState {
  workbookRels?: unknown;
  sharedStrings?: unknown;
  styles?: unknown;
  model?: unknown;
}

/**
 * exceljs names a worksheet from the workbook part (xl/workbook.xml) read before it; this stands for the
 * part until it is read (a sheet without a name reads as Sheet1 below).
 */
const NO_MODEL_YET = Object.freeze({ sheets: [] });

/**
 * Streams the rows of the first worksheet that has any, with exceljs's WorkbookReader (nothing loaded
 * whole; styles are read because they tell dates from numbers), fed the workbook with the parts its
 * sheets depend on first (xlsx-order.ts says why). Blank rows are not stored in .xlsx files, so none are
 * seen; `line` is the worksheet row number.
 */
export async function* readXlsx(path: string, onSheetName?: (name: string) => void): AsyncGenerator<SourceItem> {
  // Measured before the reader is trusted with it (file-limits.ts): a zip bomb is refused unread.
  const parts = await checkXlsxArchive(path);
  // Not a zip archive: the reader refuses the file as it is.
  const source = parts ? await dependenciesFirst(path) : { stream: createReadStream(path), close: () => undefined };
  const needed = SHEET_DEPENDENCIES.filter((part) => parts?.includes(part));
  const workbook = new (excel().stream.xlsx.WorkbookReader)(source.stream, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore' });
  const reader = workbook as unknown as ReaderState;
  reader.model ??= NO_MODEL_YET;
  try {
    for await (const worksheet of workbook) {
      // Never met with the parts in order; a sheet parsed without them reads text and dates wrongly.
      const unread = needed.filter((part) => !READ[part](reader));
      if (unread.length) throw new InputError('file', `the workbook's worksheet was read before ${unread.join(', ')}; save it again from your spreadsheet, or as CSV`);
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
    source.stream.destroy();
    source.close();
  }
}
