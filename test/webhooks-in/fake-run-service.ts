import { randomUUID } from 'node:crypto';
import { emptyLedger, InputError, LEDGER_CATEGORIES, ledgerCategory, type ContactEvent } from '@verify-hub/core';
import { runMatches, type ReportRow, type RunBreakdown, type RunCounters, type RunListFilter, type RunRecord, type RunService, type RunStatus, type StartRunRequest } from '@verify-hub/sync-jobs';

const ZERO: RunCounters = { pulled: 0, skipped: 0, cached: 0, verified: 0, unknown: 0, written: 0, unchanged: 0, failed: 0, credits: 0 };
const FINAL: RunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * An in-memory RunService with the contract's rules (sync-jobs/src/contracts.ts): finished runs cannot
 * be cancelled or resumed, listeners hear each run finish once, enqueued events are recorded and
 * repeated deliveries (same connection and dedupeKey) dropped. A test
 * can give it a `work` function that does a run's job (the file round trip) and can make enqueueing fail.
 */
export class FakeRunService implements RunService {
  readonly runs = new Map<string, RunRecord>();
  readonly events: (ContactEvent & { connectionId: string })[] = [];
  readonly reports = new Map<string, ReportRow[]>();
  private readonly listeners = new Set<(run: RunRecord) => void>();
  /** Set to make the next enqueueEvent calls reject (Redis trouble). */
  failEnqueue = false;
  /** Does a started run's work; resolves to its final counters. */
  work?: (run: RunRecord) => Promise<Partial<RunCounters>>;
  private readonly pending = new Set<Promise<void>>();
  private readonly seen = new Set<string>();

  async start(request: StartRunRequest): Promise<RunRecord> {
    const run: RunRecord = { id: `run-${randomUUID()}`, platform: request.platform, connectionId: request.connectionId, scope: request.scope, options: request.options ?? {}, status: 'queued', counters: { ...ZERO }, createdAt: new Date().toISOString() };
    if (request.expectedTotal !== undefined) run.expectedTotal = request.expectedTotal;
    if (request.name) run.name = request.name;
    this.runs.set(run.id, run);
    if (this.work) {
      const job = this.execute(run);
      this.pending.add(job);
      void job.finally(() => this.pending.delete(job));
    }
    return { ...run };
  }

  private async execute(run: RunRecord): Promise<void> {
    this.update(run.id, { status: 'running', startedAt: new Date().toISOString() });
    try {
      const counters = await this.work!(run);
      this.finish(run.id, 'completed', counters);
    } catch (error) {
      this.finish(run.id, 'failed', {}, (error as Error).message);
    }
  }

  /** Waits for every run started with `work` to finish. */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const run = this.runs.get(id);
    return run && { ...run, counters: { ...run.counters } };
  }

  async list(filter: RunListFilter = {}): Promise<RunRecord[]> {
    return [...this.runs.values()]
      .filter((r) => runMatches(r, filter))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, filter.limit ?? 50)
      .map((r) => ({ ...r }));
  }

  async cancel(id: string): Promise<RunRecord> {
    const run = this.require(id);
    if (FINAL.includes(run.status)) throw new InputError('id', `run ${id} is already ${run.status}`);
    return this.finish(id, 'cancelled');
  }

  async resume(id: string): Promise<RunRecord> {
    const run = this.require(id);
    if (run.status !== 'paused') throw new InputError('id', `run ${id} is ${run.status}, not paused`);
    return this.update(id, { status: 'running', statusReason: undefined });
  }

  async pause(id: string): Promise<RunRecord> {
    const run = this.require(id);
    if (run.status !== 'queued' && run.status !== 'running') throw new InputError('id', `run ${id} is ${run.status}; only a queued or running run can be paused`);
    return this.update(id, { status: 'paused', statusReason: 'paused by a user', resumeAt: undefined });
  }

  /** Counted from the run's report rows (`reports`), as the pipeline counts its own. */
  async breakdown(id: string): Promise<RunBreakdown> {
    this.require(id);
    const rows = this.reports.get(id) ?? [];
    const reasons = new Map<string, number>();
    const ledger = emptyLedger();
    const unknownReasons: Record<string, number> = {};
    for (const row of rows) {
      const category = row.outcome === 'failed' || !row.risk ? 'write_failed' : ledgerCategory(row.risk, row.reason);
      ledger[category]++;
      if (category === 'unknown' && row.reason) unknownReasons[row.reason] = (unknownReasons[row.reason] ?? 0) + 1;
      if (row.reason) reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + 1);
    }
    const failed = rows.filter((r) => r.outcome === 'failed');
    ledger.total = LEDGER_CATEGORIES.reduce((sum, c) => sum + ledger[c], 0);
    // As the pipeline's: the risk counts are the ledger's.
    return {
      risk: { safe: ledger.safe, risky: ledger.risky, invalid: ledger.invalid, unknown: ledger.unknown },
      ledger,
      unknownReasons,
      reasons: [...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => ({ reason, count })),
      failures: failed.slice(0, 100).map((r) => ({ contactId: r.contactId, email: r.email, error: r.error })),
      failuresTotal: failed.length,
    };
  }

  async recheckUnknowns(id: string): Promise<RunRecord> {
    const run = this.require(id);
    return this.start({ platform: run.platform, connectionId: run.connectionId, scope: `recheck:${id}`, options: run.options });
  }

  async *report(id: string): AsyncIterable<ReportRow> {
    for (const row of this.reports.get(id) ?? []) yield row;
  }

  async enqueueEvent(event: ContactEvent & { connectionId: string }): Promise<{ queued: boolean }> {
    if (this.failEnqueue) throw new Error('Connection is closed.');
    // The contract's rule: a delivery seen before (same dedupeKey on the same connection) is dropped.
    const key = `${event.connectionId}\n${event.dedupeKey}`;
    if (this.seen.has(key)) return { queued: false };
    this.seen.add(key);
    this.events.push(event);
    return { queued: true };
  }

  onRunFinished(listener: (run: RunRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Moves a run to a state (tests drive runs through their life with it). */
  update(id: string, patch: Partial<RunRecord>): RunRecord {
    const run = { ...this.require(id), ...patch };
    this.runs.set(id, run);
    return { ...run };
  }

  finish(id: string, status: 'completed' | 'failed' | 'cancelled', counters: Partial<RunCounters> = {}, reason?: string): RunRecord {
    const run = this.update(id, { status, statusReason: reason, finishedAt: new Date().toISOString(), counters: { ...this.require(id).counters, ...counters } });
    for (const listener of this.listeners) listener(run);
    return run;
  }

  private require(id: string): RunRecord {
    const run = this.runs.get(id);
    if (!run) throw new InputError('id', `run ${id} not found`);
    return run;
  }
}
