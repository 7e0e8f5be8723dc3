import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import {
  InputError,
  VerifyHubError,
  type Connector,
  type Contact,
  type ContactResult,
  type Page,
  type SchemaReport,
  type SingleWriter,
  type Scope,
  type WriteOptions,
  type WriteReport,
} from '@verify-hub/core';
import { cellText, type CellValue } from './cells';
import { previewText } from './file-limits';
import { DataRows, rowLimitError } from './data-rows';
import { checkEmailColumn, detectLayout, openSource, SAMPLE_ROWS, sniff, type EmailColumnCheck, type FileLayout, type Sniffed } from './layout';
import { REMOVABLE_RISKS, recheckOutputs, resolveOptions, type CategoryFile, type FileConnectorOptions, type RemovableRisk, type ResolvedOptions, type SplitFormat } from './options';
import { OrderedOutput, type OutputTotals } from './ordered-output';

/** The scope kind a file connector reads (`all` is accepted as a synonym): the whole file. */
export const FILE_SCOPE = 'file';

/**
 * `recheck:<runId>`: the whole file again, for a re-check of that run's unknown rows. Results still
 * fresh in the cache cost nothing, unknowns are never cached, so they are what gets verified again;
 * the outputs are new files (`recheckOutputs`), never the first run's.
 */
export const RECHECK_SCOPE = 'recheck';

export interface FileInspection {
  /** A name per column: the header text, or `column_N` where it is blank or the file has no header. */
  columns: string[];
  emailColumn: string;
  /** 1-based index of the email column. */
  emailColumnIndex: number;
  delimiter?: string;
  /** Delimited files: `utf8`, or `windows-1252` when the file is not UTF-8 (outputs are UTF-8 with a BOM). */
  encoding?: string;
  hasHeader: boolean;
  /** Data rows (the header and blank rows not counted; broken records not counted). */
  rowCount: number;
  /** The first data rows, by column name, for previews. */
  sample: Record<string, string>[];
  /** The wrong-column guard over the first rows: `warning` when under half of the email column's values look like addresses. */
  emailCheck: EmailColumnCheck;
}

export interface FileProblem {
  line: number;
  message: string;
}

/**
 * What `finish()` returns and writes as JSON: the output totals (rows, per-risk counts, removed,
 * skipped by reason, duplicate rows, credits) plus where everything went and what could not be read.
 */
export interface FileSummary extends OutputTotals {
  input: string;
  output: string;
  removedOutput: string;
  summaryOutput: string;
  /** The records that could not be read, each with its line, reason and text (CSV). */
  rejectedOutput: string;
  dryRun: boolean;
  /** The risks whose rows went to the removed file (`remove`); every other row is in the cleaned file. */
  removedRisks: RemovableRisk[];
  /** The per-category files written (`split`): by category or flag, each in CSV and .xlsx; only those with rows. */
  categoryOutputs?: Partial<Record<CategoryFile, Record<SplitFormat, string>>>;
  problems: FileProblem[];
}

const SAMPLE_SIZE = 5;

/** `file` (or `all`) and `recheck:<run id>`; an `InputError` naming `scope` otherwise. */
export function checkFileScope(scope: Scope): void {
  if (scope.kind !== FILE_SCOPE && scope.kind !== 'all' && scope.kind !== RECHECK_SCOPE) throw new InputError('scope', `the file connector reads scope "${FILE_SCOPE}" or "${RECHECK_SCOPE}:<run id>", not "${scope.kind}"`);
}

/**
 * The summary as the JSON file has it: file names, never the folders they are in. The file travels
 * (a hub serves it as a download) and a server's paths are not the reader's business.
 */
function withFileNames(summary: FileSummary): FileSummary {
  const { input, output, removedOutput, summaryOutput, rejectedOutput, categoryOutputs } = summary;
  const named: FileSummary = { ...summary, input: basename(input), output: basename(output), removedOutput: basename(removedOutput), summaryOutput: basename(summaryOutput), rejectedOutput: basename(rejectedOutput) };
  if (categoryOutputs) {
    named.categoryOutputs = {};
    for (const [name, files] of Object.entries(categoryOutputs)) named.categoryOutputs[name as CategoryFile] = { csv: basename(files.csv), xlsx: basename(files.xlsx) };
  }
  return named;
}

/**
 * A Connector over one CSV/TSV/.xlsx file. `pull()` pages through the rows; `write()` streams the
 * cleaned and removed files in input order; `finish()` closes them and writes the summary.
 */
export class FileConnector implements Connector {
  readonly platform = 'file';
  /** One output for the whole run: the pipeline runs it in one job (core's `SingleWriter`). */
  readonly singleWriter: SingleWriter = this;
  options: ResolvedOptions;
  private runId?: string;
  private inspection?: Promise<{ layout: FileLayout; info: FileInspection }>;
  private reader?: DataRows;
  private pulling: Promise<unknown> = Promise.resolve();
  private output?: OrderedOutput;
  private outputStart?: Promise<OrderedOutput>;
  private summary?: FileSummary;
  private readonly problemsByLine = new Map<number, string>();

  constructor(private readonly rawOptions: FileConnectorOptions) {
    this.options = resolveOptions(rawOptions);
  }

  checkScope(scope: Scope): void {
    checkFileScope(scope);
  }

  /** The run this connector works for (the pipeline says so): names a re-check's outputs. */
  bindRun(runId: string): void {
    this.runId = runId;
  }

  /** Rows that could not be parsed (and other row problems), by line number, from every read so far. */
  get problems(): FileProblem[] {
    return [...this.problemsByLine].sort(([a], [b]) => a - b).map(([line, message]) => ({ line, message }));
  }

  /** Nothing to create: checks that the input can be read and the outputs written. */
  async ensureSchema(): Promise<SchemaReport> {
    const problems: string[] = [];
    try {
      const info = await stat(this.options.input);
      if (!info.isFile()) problems.push(`input: ${this.options.input} is not a file`);
      else await access(this.options.input, constants.R_OK);
    } catch (error) {
      problems.push(`input: cannot read ${this.options.input} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    for (const field of ['output', 'removedOutput', 'summaryOutput', 'rejectedOutput'] as const) {
      const dir = dirname(this.options[field]);
      try {
        await access(dir, constants.W_OK);
      } catch (error) {
        problems.push(`${field}: cannot write to ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
    return { created: [], existing: problems.length ? [] : [this.options.input], problems };
  }

  /** Header, email column, delimiter and row count (one streamed pass; refuses a file over `maxRows`). */
  async inspect(): Promise<FileInspection> {
    return (await this.layout()).info;
  }

  /** The file's data rows (from the same pass as `inspect()`): a run's progress total, known before the first page. */
  async estimateTotal(scope: Scope): Promise<number | undefined> {
    if (scope.kind === RECHECK_SCOPE) return undefined;
    return (await this.layout()).info.rowCount;
  }

  /** Pages through the file; calls are taken one at a time (they share one reader). */
  pull(scope: Scope, cursor?: string): Promise<Page> {
    const page = this.pulling.then(() => this.pullPage(scope, cursor));
    this.pulling = page.catch(() => undefined);
    return page;
  }

  private async pullPage(scope: Scope, cursor?: string): Promise<Page> {
    this.checkScope(scope);
    if (scope.kind === RECHECK_SCOPE) this.useRecheckOutputs();
    if (cursor !== undefined && !/^\d+$/.test(cursor)) throw new InputError('cursor', `"${cursor}" is not a file cursor (a row count)`);
    const { layout } = await this.layout();
    const start = cursor === undefined ? 0 : Number(cursor);
    if (!this.reader || this.reader.position !== start) {
      await this.reader?.close();
      this.reader = new DataRows(this.options, layout);
      while (this.reader.position < start) {
        const item = await this.reader.next();
        if (!item) break;
        if (item.kind === 'problem') this.problemsByLine.set(item.line, item.message);
      }
      await this.takeProblems(this.reader);
    }
    const reader = this.reader;
    const contacts: Contact[] = [];
    const skipped = { no_email: 0, unparseable: 0 };
    let rows = 0;
    let ended = false;
    while (rows < this.options.pageSize) {
      const item = await reader.next();
      if (!item) {
        ended = true;
        break;
      }
      if (item.kind === 'problem') {
        this.problemsByLine.set(item.line, item.message);
        skipped.unparseable++;
        continue;
      }
      rows++;
      if (item.email === '') skipped.no_email++;
      // No payload: the cleaned file is written from a second read of the input (OrderedOutput), so a
      // page's contacts need not carry their row's cells, which would live (and be promoted) for as
      // long as the page is verified, and be stored in every queued chunk's job.
      else contacts.push({ id: String(item.row), email: item.email });
    }
    // Problems right after the page's last row belong to this page; then we know whether the file ended.
    skipped.unparseable += await this.takeProblems(reader);
    if (ended || !(await reader.peek())) {
      await reader.close();
      this.reader = undefined;
      return { contacts, skipped };
    }
    return { contacts, next: String(reader.position), skipped };
  }

  /**
   * Appends rows to the cleaned and removed files, in input order: results may come in any order and
   * in any batches (a row waits until every row before it is written). `dryRun` writes no file.
   * `written` counts results taken; a result delivered again is listed `unchanged`.
   */
  async write(results: ContactResult[], opts: WriteOptions = {}): Promise<WriteReport> {
    const output = await this.startOutput(opts.dryRun === true || this.options.dryRun);
    return output.accept(results);
  }

  /**
   * Writes the rows still waiting (a row whose result never came gets empty result columns and counts
   * as `no_result`), closes the outputs, writes the summary JSON (not on a dry run) and returns it.
   * `credits` replaces the file's own count with the run's (results served from a cache cost nothing).
   */
  async finish(overrides: { credits?: number } = {}): Promise<FileSummary> {
    if (this.summary) return this.summary;
    const output = await this.startOutput(this.output?.dryRun ?? this.options.dryRun);
    await this.reader?.close();
    this.reader = undefined;
    const totals = await output.finish();
    const { input, output: cleaned, removedOutput, summaryOutput, rejectedOutput } = this.options;
    const summary: FileSummary = {
      input,
      output: cleaned,
      removedOutput,
      summaryOutput,
      rejectedOutput,
      dryRun: output.dryRun,
      removedRisks: REMOVABLE_RISKS.filter((risk) => this.options.remove.has(risk)),
      rows: totals.rows,
      counts: totals.counts,
      removed: totals.removed,
      skipped: totals.skipped,
      duplicateRows: totals.duplicateRows,
      credits: overrides.credits ?? totals.credits,
      rejected: totals.rejected,
      ledger: totals.ledger,
      unknownReasons: totals.unknownReasons,
      flags: totals.flags,
      problems: this.problems,
    };
    if (output.categories) summary.categoryOutputs = output.categories.written;
    if (!output.dryRun) await writeFile(summaryOutput, `${JSON.stringify(withFileNames(summary), null, 2)}\n`);
    this.summary = summary;
    return summary;
  }

  /**
   * Ends without finishing (a paused or cancelled queue run): closes the input and removes the
   * partial outputs. A new connector writes the run again from the start.
   */
  async abort(): Promise<void> {
    await this.reader?.close();
    this.reader = undefined;
    const output = await this.outputStart?.catch(() => undefined);
    await output?.abort();
  }

  /** A re-check writes new files; decided before the first write, the same way by every pull. */
  private useRecheckOutputs(): void {
    if (!this.runId) throw new InputError('scope', `a re-check of a file needs the run it belongs to: start it with \`verify-hub runs recheck <run id>\``);
    if (this.outputStart) return;
    this.options = recheckOutputs(resolveOptions(this.rawOptions), this.runId);
  }

  private startOutput(dryRun: boolean): Promise<OrderedOutput> {
    if (this.summary) return Promise.reject(new VerifyHubError(`${this.options.input}: finish() was called already; start a new connector for another run`));
    this.outputStart ??= this.layout().then(({ layout }) => {
      this.output = new OrderedOutput(this.options, layout, dryRun, (line, message) => this.problemsByLine.set(line, message));
      return this.output;
    });
    return this.outputStart.then((output) => {
      if (output.dryRun !== dryRun) throw new InputError('dryRun', 'a run cannot mix dry-run and real writes');
      return output;
    });
  }

  private async takeProblems(reader: DataRows): Promise<number> {
    let count = 0;
    for (let item = await reader.peek(); item?.kind === 'problem'; item = await reader.peek()) {
      this.problemsByLine.set(item.line, item.message);
      count++;
      await reader.next();
    }
    return count;
  }

  private layout(): Promise<{ layout: FileLayout; info: FileInspection }> {
    this.inspection ??= this.scan();
    return this.inspection;
  }

  /** One streamed pass: the first rows for detection, the widest row and the number of rows. */
  private async scan(): Promise<{ layout: FileLayout; info: FileInspection }> {
    const head: Sniffed & { sheetName?: string } = await this.readable(() => sniff(this.options));
    const first: CellValue[][] = [];
    let records = 0;
    let width = 0;
    const source = openSource(this.options, head, (name) => (head.sheetName ??= name));
    try {
      for await (const item of source) {
        if (item.kind === 'problem') {
          this.problemsByLine.set(item.line, item.message);
          continue;
        }
        if (item.cells.every((c) => cellText(c).trim() === '')) continue;
        records++;
        width = Math.max(width, item.cells.length);
        if (first.length <= SAMPLE_ROWS) first.push(item.cells);
        // The header may be missing, so one row more than the limit is still allowed here.
        if (records > this.options.maxRows + 1) break;
      }
    } catch (error) {
      throw this.readError(error);
    } finally {
      await source.return(undefined);
    }
    const layout = await detectLayout(this.options, first, head, width);
    const rowCount = records - (layout.hasHeader ? 1 : 0);
    if (rowCount > this.options.maxRows) throw rowLimitError(this.options);
    const dataRows = layout.hasHeader ? first.slice(1) : first;
    const info: FileInspection = {
      columns: layout.columns,
      emailColumn: layout.columns[layout.emailIndex]!,
      emailColumnIndex: layout.emailIndex + 1,
      delimiter: layout.delimiter,
      encoding: layout.encoding,
      hasHeader: layout.hasHeader,
      rowCount,
      sample: dataRows.slice(0, SAMPLE_SIZE).map((cells) => Object.fromEntries(layout.columns.map((name, i) => [name, previewText(cellText(cells[i]))]))),
      emailCheck: checkEmailColumn(layout, dataRows, width),
    };
    return { layout, info };
  }

  private async readable<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw this.readError(error);
    }
  }

  private readError(error: unknown): Error {
    if (error instanceof VerifyHubError) return error;
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'ENOENT') return new InputError('input', `${this.options.input} does not exist`);
    if (code === 'EACCES') return new InputError('input', `${this.options.input} cannot be read (permission denied)`);
    if (code === 'EISDIR') return new InputError('input', `${this.options.input} is a directory`);
    const what = this.options.format === 'xlsx' ? 'an .xlsx workbook' : 'a delimited text file';
    return new InputError('input', `${this.options.input} could not be read as ${what}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
}
