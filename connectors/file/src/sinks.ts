import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { excel } from './excel';
import { cellText, type CellValue } from './cells';

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

/**
 * One RFC 4180 record and its line break (LF): a field is quoted when it holds the delimiter, a quote or
 * a line break, and a quote inside it is doubled. Written out rather than through csv-stringify, whose
 * per-field cast contexts were a sixth of what a 50,000-row clean allocated (issue 22, item 5); the
 * fuzz test reads every output back with csv-parse.
 */
export function csvRecord(cells: readonly CellValue[], delimiter: string): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    // Booleans as true/false, dates in ISO 8601, nothing as an empty field.
    const text = cellText(cells[i]);
    const quoted = text.includes(delimiter) || text.includes('"') || text.includes('\n') || text.includes('\r');
    line += (i === 0 ? '' : delimiter) + (quoted ? `"${text.replaceAll('"', '""')}"` : text);
  }
  return `${line}\n`;
}

/**
 * Rows are gathered, as bytes, into buffers of this size, each written whole: one write per row cost a
 * buffer and a request each, and gathering the rows' text instead kept every row's string alive (and
 * promoted to the old generation) until its write; as bytes, a row's text dies at once (issue 22).
 */
const CSV_WRITE_BYTES = 64 * 1024;

export function csvSink(path: string, delimiter: string, bom: boolean): RowSink {
  const file = createWriteStream(partial(path));
  // A failed disk write must end a wait for 'drain', which would otherwise never come.
  const failed = new AbortController();
  file.on('error', (error: Error) => failed.abort(error));
  // A fresh buffer after each write: the stream holds the one it was given until it is on disk.
  let gathered = Buffer.allocUnsafe(CSV_WRITE_BYTES);
  let used = bom ? gathered.write('\uFEFF') : 0;
  const send = async (bytes: Buffer) => {
    if (bytes.length > 0 && !file.write(bytes)) await once(file, 'drain', { signal: failed.signal });
  };
  const flush = async () => {
    if (failed.signal.aborted) throw failed.signal.reason;
    const full = gathered.subarray(0, used);
    gathered = Buffer.allocUnsafe(CSV_WRITE_BYTES);
    used = 0;
    await send(full);
  };
  return {
    async write(cells) {
      if (failed.signal.aborted) throw failed.signal.reason;
      const text = csvRecord(cells.map(neutralizeFormula), delimiter);
      const size = Buffer.byteLength(text);
      if (used + size > gathered.length) await flush();
      if (size > gathered.length) await send(Buffer.from(text));
      else used += gathered.write(text, used);
    },
    async close() {
      await flush();
      file.end();
      await finished(file);
      await rename(partial(path), path);
    },
    async abort() {
      used = 0;
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
