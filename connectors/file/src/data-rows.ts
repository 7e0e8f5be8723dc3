import { InputError } from '@verify-hub/core';
import { cellText, type CellValue, type SourceItem } from './cells';
import { openSource, type FileLayout } from './layout';
import type { ResolvedOptions } from './options';

export type DataItem =
  | { kind: 'row'; row: number; line: number; cells: CellValue[]; email: string }
  | { kind: 'problem'; line: number; message: string; raw?: string };

export function rowLimitError(options: ResolvedOptions): InputError {
  return new InputError(
    'maxRows',
    `${options.input} has more than ${options.maxRows.toLocaleString('en-US')} data rows, the limit: split the file or raise the limit with --max-rows (option maxRows)`,
  );
}

const isBlank = (cells: CellValue[]) => cells.every((c) => cellText(c).trim() === '');

/**
 * The data rows of a file in order, numbered from 1 (the header is not a data row), with broken
 * records as problems in between. Rows whose cells are all empty are dropped. Every pass over the
 * file (inspect, pull, write) numbers rows the same way.
 */
export class DataRows {
  private readonly source: AsyncGenerator<SourceItem>;
  private rowNumber = 0;
  private headerSeen: boolean;
  private peeked: DataItem | undefined;
  private done = false;

  constructor(private readonly options: ResolvedOptions, private readonly layout: Pick<FileLayout, 'hasHeader' | 'delimiter' | 'encoding' | 'emailIndex' | 'columns'>) {
    this.source = openSource(options, layout);
    this.headerSeen = !layout.hasHeader;
  }

  /** Data rows returned by `next()` so far (a peeked row is not counted). */
  get position(): number {
    return this.peeked?.kind === 'row' ? this.rowNumber - 1 : this.rowNumber;
  }

  async peek(): Promise<DataItem | undefined> {
    if (!this.peeked && !this.done) this.peeked = await this.read();
    return this.peeked;
  }

  async next(): Promise<DataItem | undefined> {
    const item = await this.peek();
    this.peeked = undefined;
    return item;
  }

  async close(): Promise<void> {
    this.done = true;
    await this.source.return(undefined);
  }

  private async read(): Promise<DataItem | undefined> {
    for (;;) {
      const { value: item, done } = await this.source.next();
      if (done) {
        this.done = true;
        return undefined;
      }
      if (item.kind === 'problem') return item;
      if (isBlank(item.cells)) continue;
      if (!this.headerSeen) {
        this.headerSeen = true;
        continue;
      }
      this.rowNumber++;
      if (this.rowNumber > this.options.maxRows) {
        await this.close();
        throw rowLimitError(this.options);
      }
      // .xlsx rows stop at their last non-empty cell: every row gets the file's width.
      const cells = item.cells.length < this.layout.columns.length ? [...item.cells, ...new Array<null>(this.layout.columns.length - item.cells.length).fill(null)] : item.cells;
      return { kind: 'row', row: this.rowNumber, line: item.line, cells, email: cellText(cells[this.layout.emailIndex]).trim() };
    }
  }
}
