import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { excel } from './excel';
import type { CellValue } from './cells';

/** A streamed output file. Rows go to `<path>.partial`, renamed to `path` on close: a crash never leaves a half file under the real name. */
export interface RowSink {
  write(cells: CellValue[]): Promise<void>;
  close(): Promise<void>;
  /** Removes the partial file (a run that failed). */
  abort(): Promise<void>;
}

const partial = (path: string) => `${path}.partial`;

/**
 * A cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading
 * apostrophe (OWASP CSV injection): the cells come from contact lists anyone could have typed into.
 * Numbers and booleans are written as they are (our own `ev_score`, for example).
 */
export function neutralizeFormula(cell: CellValue): CellValue {
  return typeof cell === 'string' && /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

export function csvSink(path: string, delimiter: string, bom: boolean): RowSink {
  const file = createWriteStream(partial(path));
  const stringifier = stringify({ delimiter, bom, record_delimiter: 'unix', cast: { boolean: (b) => (b ? 'true' : 'false'), date: (d) => d.toISOString() } });
  // A failed disk write must end a wait for 'drain', which would otherwise never come.
  const failed = new AbortController();
  for (const stream of [file, stringifier]) stream.on('error', (error: Error) => failed.abort(error));
  stringifier.pipe(file);
  return {
    async write(cells) {
      if (failed.signal.aborted) throw failed.signal.reason;
      if (!stringifier.write(cells.map(neutralizeFormula))) await once(stringifier, 'drain', { signal: failed.signal });
    },
    async close() {
      stringifier.end();
      await finished(file);
      await rename(partial(path), path);
    },
    async abort() {
      stringifier.destroy();
      file.destroy();
      await rm(partial(path), { force: true });
    },
  };
}

export function xlsxSink(path: string, sheetName: string): RowSink {
  // Our cells carry values, never styles: exceljs's style-less writer gives dates the same date format
  // and everything else the default, without building a style key per cell (about a sixth of what a
  // 50,000-row clean allocated).
  const workbook = new (excel().stream.xlsx.WorkbookWriter)({ filename: partial(path), useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName);
  return {
    async write(cells) {
      sheet.addRow(cells.map((cell) => (cell === '' ? null : cell))).commit();
    },
    async close() {
      sheet.commit();
      await workbook.commit();
      await rename(partial(path), path);
    },
    async abort() {
      await workbook.commit().catch(() => undefined);
      await rm(partial(path), { force: true });
    },
  };
}

/** Dry runs: counts everything, writes nothing. */
export const nullSink: RowSink = { write: async () => undefined, close: async () => undefined, abort: async () => undefined };
