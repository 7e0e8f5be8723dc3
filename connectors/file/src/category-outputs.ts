import { CATEGORY_WORDS, FLAG_WORDS, ROW_FLAGS, type LedgerCategory, type RowFlag } from '@verify-hub/core';
import type { CellValue } from './cells';
import type { FileLayout } from './layout';
import { CATEGORY_FILES, SPLIT_FORMATS, categoryOutput, type CategoryFile, type ResolvedOptions, type SplitFormat } from './options';
import { csvSink, xlsxSink, type RowSink } from './sinks';

const isCategoryFile = (name: string): name is CategoryFile => (CATEGORY_FILES as readonly string[]).includes(name);

/** A category's or flag's plain label (core's words), for a worksheet's name and the summaries. */
export function categoryFileLabel(name: CategoryFile): string {
  return (ROW_FLAGS as readonly string[]).includes(name) ? FLAG_WORDS[name as RowFlag].label : CATEGORY_WORDS[name as LedgerCategory].label;
}

/**
 * The per-category files of a run (`split`), written while the cleaned and removed files are: the row
 * that adds one to the ledger's category (and to a flag's count) is the row written to that category's
 * files, so a download has exactly the rows the counts say, in input order. A file is opened with the
 * first row of its category: a category without rows has no file.
 */
export class CategoryOutputs {
  private readonly sinks = new Map<string, RowSink>();
  /** The files written, by category and format (known once closed). */
  readonly written: Partial<Record<CategoryFile, Record<SplitFormat, string>>> = {};

  constructor(
    private readonly options: ResolvedOptions,
    private readonly layout: FileLayout,
    private readonly header: CellValue[],
  ) {}

  /** Appends the output row to its category's files and to each of its flags' files. */
  async write(category: LedgerCategory, flags: readonly RowFlag[], cells: CellValue[]): Promise<void> {
    for (const name of [category, ...flags]) {
      if (!isCategoryFile(name)) continue;
      for (const format of SPLIT_FORMATS) await (await this.sink(name, format)).write(cells);
    }
  }

  async close(): Promise<void> {
    for (const sink of this.sinks.values()) await sink.close();
  }

  async abort(): Promise<void> {
    for (const sink of this.sinks.values()) await sink.abort();
  }

  private async sink(name: CategoryFile, format: SplitFormat): Promise<RowSink> {
    const key = `${name}.${format}`;
    let sink = this.sinks.get(key);
    if (sink) return sink;
    const path = categoryOutput(this.options, name, format);
    // CSV in the input's delimiter (a .tsv's tab becomes a comma: the file is a .csv), with the cleaned file's BOM rule.
    const delimiter = this.layout.delimiter && this.layout.delimiter !== '\t' ? this.layout.delimiter : ',';
    sink = format === 'xlsx' ? xlsxSink(path, categoryFileLabel(name)) : csvSink(path, delimiter, this.layout.bom || this.layout.encoding === 'windows-1252');
    this.sinks.set(key, sink);
    (this.written[name] ??= {} as Record<SplitFormat, string>)[format] = path;
    await sink.write(this.header);
    return sink;
  }
}
