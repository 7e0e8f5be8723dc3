import { emptyLedger, ledgerCategory, normalizeEmail, rowFlags, VerificationSchema, RISKS, ROW_FLAGS, type ContactResult, type Ledger, type Risk, type RowFlag, type Verification, type WriteFailure, type WriteReport } from '@verify-hub/core';
import { CategoryOutputs } from './category-outputs';
import type { CellValue } from './cells';
import { DataRows } from './data-rows';
import type { FileLayout } from './layout';
import type { ResolvedOptions } from './options';
import { OutputColumns } from './output-columns';
import { csvSink, nullSink, xlsxSink, type RowSink } from './sinks';

export interface OutputTotals {
  rows: number;
  counts: Record<Risk, number>;
  removed: number;
  skipped: Record<string, number>;
  credits: number;
  duplicateRows: number;
  /** Records that could not be read: each is a row of the rejected-rows file, with its line and reason. */
  rejected: number;
  /**
   * The run's one ledger over this file: every row (duplicates included, unreadable ones too) in
   * exactly one final category. cleaned + removed + rejected rows = `ledger.total`.
   */
  ledger: Ledger;
  /** Unknown rows by reason code (`dns_unavailable`, `smtp_timeout`, ...): says why in the summaries. */
  unknownReasons: Record<string, number>;
  /** Rows per flag (role, disposable, catch-all), whatever their category: the per-flag files' rows. */
  flags: Record<RowFlag, number>;
}

/** The columns of the rejected-rows file: where the record starts, why it was not read, and its text. */
export const REJECTED_COLUMNS = ['line', 'reason', 'record'];

const sameAddress = (rowEmail: string, v: Verification) => {
  const n = normalizeEmail(rowEmail);
  return (n.ok && n.normalized === v.normalized) || rowEmail === v.email.trim() || rowEmail === v.normalized;
};

/**
 * Writes the cleaned and removed files in input order, whatever order results arrive in. It reads
 * the input a second time, in step with the results: a row with an address waits until its result
 * arrives (results that come early wait in `pending`), rows without an address are written at once
 * with empty result columns. Rows never come from `pull()`, so any instance can write a run.
 */
export class OrderedOutput {
  private readonly rows: DataRows;
  private readonly pending = new Map<number, Verification>();
  private readonly columns: OutputColumns;
  private sinks?: { cleaned: RowSink; removed: RowSink; rejected: RowSink };
  private queue: Promise<unknown> = Promise.resolve();
  private lastWritten = 0;
  /** Every address seen (normalised), and whether a credit was counted for it: one entry per address. */
  private readonly addresses = new Map<string, boolean>();
  readonly totals: OutputTotals = {
    rows: 0,
    counts: Object.fromEntries(RISKS.map((r) => [r, 0])) as Record<Risk, number>,
    removed: 0,
    skipped: { no_email: 0, unparseable: 0 },
    credits: 0,
    duplicateRows: 0,
    rejected: 0,
    ledger: emptyLedger(),
    unknownReasons: {},
    flags: Object.fromEntries(ROW_FLAGS.map((f) => [f, 0])) as Record<RowFlag, number>,
  };
  /** The per-category files (`split`, not on a dry run). */
  readonly categories?: CategoryOutputs;

  constructor(
    private readonly options: ResolvedOptions,
    private readonly layout: FileLayout,
    readonly dryRun: boolean,
    private readonly onProblem: (line: number, message: string) => void,
  ) {
    this.rows = new DataRows(options, layout);
    this.columns = new OutputColumns(layout);
    if (options.split && !dryRun) this.categories = new CategoryOutputs(options, layout, this.columns.header);
  }

  /** Takes a batch of results; rows are written as soon as every row before them is. */
  accept(results: ContactResult[]): Promise<WriteReport> {
    const report: WriteReport = { written: 0, unchanged: [], failed: [] };
    for (const result of results) {
      const failure = this.take(result);
      if (failure === 'again') report.unchanged.push(String(result.contact?.id));
      else if (failure) report.failed.push(failure);
      else report.written++;
    }
    return this.serialized(async () => {
      try {
        await this.advance(false);
        return report;
      } catch (error) {
        // A failed write ends the files (a write stream that failed is gone): the input is closed and the
        // partial files removed now, as `finish` would, not left open until the GC closes them.
        await this.abort();
        throw error;
      }
    });
  }

  /** Writes every remaining row (rows whose result never came get empty result columns) and closes the files. */
  finish(): Promise<OutputTotals> {
    return this.serialized(async () => {
      try {
        await this.advance(true);
        const left = this.pending.size;
        if (left > 0) this.totals.skipped.unknown_row = left;
        await this.open();
        await this.sinks!.cleaned.close();
        await this.sinks!.removed.close();
        await this.sinks!.rejected.close();
        await this.categories?.close();
        return this.totals;
      } catch (error) {
        await this.abort();
        throw error;
      }
    });
  }

  async abort(): Promise<void> {
    await this.rows.close();
    await this.sinks?.cleaned.abort();
    await this.sinks?.removed.abort();
    await this.sinks?.rejected.abort();
    await this.categories?.abort();
  }

  private take({ contact, verification }: ContactResult): WriteFailure | 'again' | undefined {
    const fail = (reason: string): WriteFailure => ({ contactId: String(contact?.id), email: String(contact?.email ?? ''), reason, retryable: false });
    const id = String(contact?.id ?? '');
    const row = /^[1-9]\d*$/.test(id) ? Number(id) : NaN;
    if (!Number.isSafeInteger(row) || row > this.options.maxRows) return fail(`id "${id}" is not a data row number of ${this.options.input}`);
    const parsed = VerificationSchema.safeParse(verification);
    if (!parsed.success) return fail(`result for row ${row} is not a verification (${parsed.error.issues[0]?.path.join('.') || 'result'}: ${parsed.error.issues[0]?.message})`);
    // A re-delivered result (a retried chunk) is not an error: the row is written once.
    if (row <= this.lastWritten || this.pending.has(row)) return 'again';
    // The result itself waits for its turn, not the parsed copy: a second copy of every waiting row
    // would live until written, long enough to be promoted (it has no transforms, so they are equal).
    this.pending.set(row, verification);
    return undefined;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async open(): Promise<void> {
    if (this.sinks) return;
    const make = (path: string): RowSink => {
      if (this.dryRun) return nullSink;
      // Outputs are UTF-8; a Windows-1252 input gets a BOM on them so Excel still reads them right.
      return this.layout.format === 'xlsx' ? xlsxSink(path, this.layout.sheetName ?? 'Sheet1') : csvSink(path, this.layout.delimiter ?? ',', this.layout.bom || this.layout.encoding === 'windows-1252');
    };
    // Rejected records are raw text, not cells: that file is comma-separated CSV whatever the input's format.
    const rejected = this.dryRun ? nullSink : csvSink(this.options.rejectedOutput, ',', this.layout.bom || this.layout.encoding === 'windows-1252');
    this.sinks = { cleaned: make(this.options.output), removed: make(this.options.removedOutput), rejected };
    await this.sinks.cleaned.write(this.columns.header);
    await this.sinks.removed.write(this.columns.header);
    await this.sinks.rejected.write(REJECTED_COLUMNS);
  }

  /** Writes rows in order while the next one is ready; with `toEnd`, writes every row left. */
  private async advance(toEnd: boolean): Promise<void> {
    await this.open();
    for (;;) {
      const item = await this.rows.peek();
      if (!item) return;
      if (item.kind === 'problem') {
        this.totals.skipped.unparseable = (this.totals.skipped.unparseable ?? 0) + 1;
        this.totals.rejected++;
        this.totals.ledger.unreadable++;
        this.totals.ledger.total++;
        this.onProblem(item.line, item.message);
        await this.rows.next();
        await this.sinks!.rejected.write([item.line, item.message, item.raw ?? '']);
        continue;
      }
      const verification = this.pending.get(item.row);
      if (item.email !== '' && !verification && !toEnd) return;
      await this.rows.next();
      this.pending.delete(item.row);
      await this.writeRow(item.row, item.line, item.cells, item.email, verification);
    }
  }

  private async writeRow(row: number, line: number, cells: CellValue[], email: string, given: Verification | undefined): Promise<void> {
    const { totals } = this;
    totals.rows++;
    this.lastWritten = row;
    let verification = given;
    if (email === '') {
      totals.skipped.no_email = (totals.skipped.no_email ?? 0) + 1;
      verification = undefined;
    } else if (!verification) {
      totals.skipped.no_result = (totals.skipped.no_result ?? 0) + 1;
    } else if (!sameAddress(email, verification)) {
      this.onProblem(line, `row ${row}: the result is for ${verification.email}, not for the row's address; left without a result`);
      totals.skipped.no_result = (totals.skipped.no_result ?? 0) + 1;
      verification = undefined;
    }
    if (email !== '') {
      const key = normalizeEmail(email);
      const address = key.ok ? key.normalized : email;
      const billed = this.addresses.get(address);
      if (billed !== undefined) totals.duplicateRows++;
      if (verification?.billable && !billed) {
        totals.credits++;
        this.addresses.set(address, true);
      } else if (billed === undefined) {
        this.addresses.set(address, false);
      }
    }
    if (verification) totals.counts[verification.risk]++;
    // No address, or no result for it: nothing was checked (the row is kept, with empty result columns).
    const category = verification ? ledgerCategory(verification.risk, verification.reason) : 'not_checked';
    totals.ledger[category]++;
    if (category === 'unknown') totals.unknownReasons[verification!.reason] = (totals.unknownReasons[verification!.reason] ?? 0) + 1;
    totals.ledger.total++;
    const flags = verification ? rowFlags(verification) : [];
    for (const flag of flags) totals.flags[flag]++;
    const out = this.columns.row(cells, verification);
    const removed = verification !== undefined && (this.options.remove as ReadonlySet<string>).has(verification.risk);
    if (removed) totals.removed++;
    await (removed ? this.sinks!.removed : this.sinks!.cleaned).write(out);
    // The same category and flags the counts above took: a per-category file has exactly the rows counted.
    await this.categories?.write(category, flags, out);
  }
}
