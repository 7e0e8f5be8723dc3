import { InputError } from '@verify-hub/core';
import { cellText, looksLikeEmail, type CellValue, type SourceItem } from './cells';
import { readCsv, readHead, type TextEncoding } from './csv-source';
import { detectDelimiter } from './delimiter';
import type { FileFormat, ResolvedOptions } from './options';
import { readXlsx } from './xlsx-source';
import { capCell } from './file-limits';

/** How a file is laid out, found once by `inspect()` and shared by every later read. */
export interface FileLayout {
  format: FileFormat;
  /** Delimited files only. */
  delimiter?: string;
  /** The input began with a UTF-8 byte-order mark (kept on the outputs, so Excel reads them as UTF-8). */
  bom: boolean;
  /** Delimited files: the input's text encoding (outputs are always UTF-8). */
  encoding?: TextEncoding;
  /** False when the first row already holds an address: every row is data, column names are made up. */
  hasHeader: boolean;
  /** The header row as it is in the file (empty when there is none). */
  header: CellValue[];
  /** A name per column: the header text, or `column_N` where it is blank or missing. */
  columns: string[];
  /** 0-based index of the email column. */
  emailIndex: number;
  /** The first worksheet's name (.xlsx). */
  sheetName?: string;
}

/** Header names taken as the email column, compared lower-case without spaces, dashes or underscores. */
const EMAIL_HEADERS = ['email', 'emailaddress', 'mail', 'mailaddress', 'emailaddr', 'emailid', 'courriel', 'correo', 'correoelectronico'];
const SAMPLE_ROWS = 100;

const headerKey = (cell: CellValue | undefined) => cellText(cell).trim().toLowerCase().replace(/[\s_\-.]/g, '');

/** The file's items in order, each cell cut to `FILE_LIMITS.cellChars`; `onSheetName` learns the worksheet of an .xlsx file. */
export async function* openSource(options: ResolvedOptions, text: { delimiter?: string; encoding?: TextEncoding }, onSheetName?: (name: string) => void): AsyncGenerator<SourceItem> {
  const items = options.format === 'xlsx' ? readXlsx(options.input, onSheetName) : readCsv(options.input, text.delimiter ?? ',', text.encoding);
  try {
    for await (const item of items) yield item.kind === 'record' ? { ...item, cells: item.cells.map(capCell) } : item;
  } finally {
    await items.return(undefined);
  }
}

function byHeaderName(header: CellValue[]): number {
  const keys = header.map(headerKey);
  const exact = keys.findIndex((k) => EMAIL_HEADERS.includes(k));
  if (exact >= 0) return exact;
  return keys.findIndex((k) => k.includes('email'));
}

/** How many of a column's non-empty sampled values look like addresses. */
function addressShare(rows: CellValue[][], index: number): { sampled: number; addresses: number; share: number } {
  const values = rows.map((r) => r[index]).filter((v) => cellText(v).trim() !== '');
  const addresses = values.filter(looksLikeEmail).length;
  return { sampled: values.length, addresses, share: values.length ? addresses / values.length : 0 };
}

/** The column whose non-empty values look most like addresses (at least half of them), or -1. */
function bySample(rows: CellValue[][], width: number): number {
  let best = { index: -1, share: 0.5 };
  for (let i = 0; i < width; i++) {
    const { sampled, share } = addressShare(rows, i);
    if (sampled === 0) continue;
    if (share >= best.share && share > 0 && (best.index < 0 || share > best.share)) best = { index: i, share };
  }
  return best.index;
}

/** Under this share of address-like values, the chosen email column is probably the wrong one. */
export const WRONG_COLUMN_SHARE = 0.5;

/** The wrong-column guard: how address-like the email column's sampled values are, and a better column when one looks better. */
export interface EmailColumnCheck {
  /** Non-empty values of the email column among the first rows. */
  sampled: number;
  /** Those that look like addresses. */
  addresses: number;
  /** Whole percent of them that look like addresses. */
  percent: number;
  /** When under half look like addresses: the column whose values look most like addresses (at least half), if another does. */
  suggestedColumn?: string;
  /** When under half look like addresses: the warning in words, naming the column and the share. */
  warning?: string;
}

/** Checks the email column of `layout` against the first data rows: a column of names marks every row invalid otherwise. */
export function checkEmailColumn(layout: Pick<FileLayout, 'columns' | 'emailIndex'>, dataRows: CellValue[][], width: number): EmailColumnCheck {
  const { sampled, addresses, share } = addressShare(dataRows, layout.emailIndex);
  const check: EmailColumnCheck = { sampled, addresses, percent: Math.round(share * 100) };
  if (sampled === 0 || share >= WRONG_COLUMN_SHARE) return check;
  const best = bySample(dataRows, width);
  if (best >= 0 && best !== layout.emailIndex) check.suggestedColumn = layout.columns[best];
  const name = layout.columns[layout.emailIndex];
  check.warning =
    `only ${check.percent}% of the values in column "${name}" look like email addresses; is this the email column?` +
    (check.suggestedColumn ? ` Column "${check.suggestedColumn}" looks like one.` : '');
  return check;
}

function columnList(names: string[]): string {
  return names.map((n, i) => `${i + 1}:${n}`).join(', ');
}

/** Finds the delimiter, header and email column from the first rows; `width` is the widest row of the file. */
export async function detectLayout(options: ResolvedOptions, firstRecords: CellValue[][], head: Sniffed & { sheetName?: string }, width: number): Promise<FileLayout> {
  const first = firstRecords[0];
  if (!first) throw new InputError('input', `${options.input} has no rows`);
  const headerNames = (hasHeader: boolean, emailIndex: number) =>
    Array.from({ length: width }, (_, i) => {
      const text = hasHeader ? cellText(first[i]).trim() : '';
      return text || (!hasHeader && i === emailIndex ? 'email' : `column_${i + 1}`);
    });

  let emailIndex: number;
  let hasHeader: boolean;
  if (options.column !== undefined) {
    const wanted = options.column.trim().toLowerCase();
    const named = first.findIndex((cell) => cellText(cell).trim().toLowerCase() === wanted);
    if (named >= 0) {
      emailIndex = named;
      hasHeader = true;
    } else if (/^\d+$/.test(wanted) && Number(wanted) >= 1 && Number(wanted) <= width) {
      emailIndex = Number(wanted) - 1;
      hasHeader = !looksLikeEmail(first[emailIndex]);
    } else {
      throw new InputError('column', `no column "${options.column}" in ${options.input}: give a header name or a number from 1 to ${width} (columns: ${columnList(headerNames(true, -1))})`);
    }
  } else if (first.some(looksLikeEmail)) {
    hasHeader = false;
    emailIndex = bySample(firstRecords, width);
  } else {
    hasHeader = true;
    emailIndex = byHeaderName(first);
    if (emailIndex < 0) emailIndex = bySample(firstRecords.slice(1), width);
    if (emailIndex < 0) {
      throw new InputError('column', `no email column found in ${options.input}: name it with --column (a header name or a 1-based number; columns: ${columnList(headerNames(true, -1))})`);
    }
  }
  return {
    format: options.format,
    delimiter: head.delimiter,
    bom: head.bom,
    encoding: head.encoding,
    hasHeader,
    header: hasHeader ? first : [],
    columns: headerNames(hasHeader, emailIndex),
    emailIndex,
    sheetName: head.sheetName,
  };
}

/** What a first look at the file finds: delimiter and BOM (delimited files), the worksheet (.xlsx). */
export interface Sniffed {
  delimiter?: string;
  bom: boolean;
  encoding?: TextEncoding;
}

export async function sniff(options: ResolvedOptions): Promise<Sniffed> {
  if (options.format === 'xlsx') return { bom: false };
  const head = await readHead(options.input);
  return { delimiter: options.forcedDelimiter ?? detectDelimiter(head.text), bom: head.bom, encoding: head.encoding };
}

export { SAMPLE_ROWS };
