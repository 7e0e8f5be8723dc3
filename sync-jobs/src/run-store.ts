// Over 300 lines on purpose: this is the run ledger, the one class that reads and writes a run's Redis
// keys (record, counters, pages, report, credits). Every number the CLI, the API and the dashboard show
// comes from here; keeping its key layout in one file is what lets them agree. Its Lua scripts are in
// run-store-scripts.ts and its breakdown in run-breakdown.ts.
import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { runName, runScript } from '@verify-hub/core';
import type { ReportRow, RunBreakdown, RunCounters, RunListFilter, RunOptions, RunProgress, RunRecord, RunStatus, StartRunRequest } from './contracts';
import { Keys } from './keys';
import type { RunAnswers } from './run-answers';
import { breakdownDelta, FAILURES_KEPT, readBreakdown } from './run-breakdown';
import { COUNT_PAGE, NOTE_LOOKED, APPEND_REPORT, SAVE_PAGE, TRY_COMPLETE, RESERVE_CREDITS, CREDIT_STATE, RELEASE_IF_SAME, TRANSITION } from './run-store-scripts';

export const COUNTER_NAMES = ['pulled', 'skipped', 'unreadable', 'cached', 'verified', 'rejected', 'unknown', 'written', 'unchanged', 'failed', 'credits'] as const satisfies readonly (keyof RunCounters)[];

export const emptyCounters = (): Required<RunCounters> => ({ pulled: 0, skipped: 0, unreadable: 0, cached: 0, verified: 0, rejected: 0, unknown: 0, written: 0, unchanged: 0, failed: 0, credits: 0 });

/** The statusReason of a run a user paused (a run paused on a quota, a key or the credit cap says why instead). */
export const USER_PAUSE_REASON = 'paused by a user';

/** Counters live as `n:<name>` fields of the run hash, so HINCRBY updates them atomically. */
const counterField = (name: string) => `n:${name}`;

export const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

/**
 * Run records in Redis: one hash per run, an index by creation time, a done-pages set, a report list.
 * Every key of a run expires `retentionDays` after the run last changed (Redis must run `noeviction`,
 * so nothing else would ever remove them); the index forgets runs older than that.
 */
export class RunStore {
  private readonly retentionMs: number;

  constructor(private readonly redis: Redis, private readonly keys: Keys, options: { retentionDays?: number } = {}) {
    this.retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS;
  }

  /** Sets every key of the run to expire `retentionDays` from now (keys not created yet are set when they are). */
  async keep(id: string): Promise<void> {
    const m = this.redis.multi();
    for (const key of this.keys.runKeys(id)) if (key !== this.keys.writer(id)) m.pexpire(key, this.retentionMs);
    await m.exec();
  }

  async create(request: StartRunRequest, extra: { estimatedCredits?: number; expectedTotal?: number; connectionLabel?: string } = {}): Promise<RunRecord> {
    const id = `run_${Date.now().toString(36)}_${randomUUID().slice(0, 8)}`;
    const createdAt = new Date().toISOString();
    const fields: Record<string, string> = {
      id,
      platform: request.platform,
      scope: request.scope,
      options: JSON.stringify(request.options ?? {}),
      status: 'queued',
      createdAt,
      pages: '0',
      pagesDone: '0',
      pagingDone: '0',
    };
    if (request.connectionId) fields.connectionId = request.connectionId;
    if (request.name) fields.name = request.name;
    if (extra.connectionLabel) fields.connectionLabel = extra.connectionLabel;
    if (extra.estimatedCredits !== undefined) fields.estimatedCredits = String(extra.estimatedCredits);
    if (extra.expectedTotal !== undefined) fields.expectedTotal = String(extra.expectedTotal);
    for (const name of COUNTER_NAMES) fields[counterField(name)] = '0';
    const writeRun = this.redis.multi().hset(this.keys.run(id), fields).pexpire(this.keys.run(id), this.retentionMs);
    // Runs past retention have expired: the index lets go of them too.
    const indexRun = (m: ChainableCommander) => m.zadd(this.keys.runIndex(), Date.now(), id).zremrangebyscore(this.keys.runIndex(), '-inf', Date.now() - this.retentionMs);
    if (this.keys.cluster) {
      // The run and the index are on different slots: the run first, so the index never names a run that is not there.
      await writeRun.exec();
      await indexRun(this.redis.multi()).exec();
    } else await indexRun(writeRun).exec();
    return (await this.get(id))!;
  }

  /** Runs' hashes in one round trip: a pipeline on one server; on a cluster (runs on many slots) one HGETALL each, sent together. */
  private async readRuns(ids: string[]): Promise<Record<string, string>[]> {
    if (this.keys.cluster) return Promise.all(ids.map((id) => this.redis.hgetall(this.keys.run(id))));
    const batch = this.redis.pipeline();
    for (const id of ids) batch.hgetall(this.keys.run(id));
    return ((await batch.exec()) ?? []).map(([error, hash]) => {
      if (error) throw error;
      return hash as Record<string, string>;
    });
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const h = await this.redis.hgetall(this.keys.run(id));
    if (!h.id) return undefined;
    return toRecord(h);
  }

  async progress(id: string): Promise<RunProgress & { cursor?: string; status?: RunStatus }> {
    const [pages, pagesDone, pagingDone, cursor, status] = await this.redis.hmget(this.keys.run(id), 'pages', 'pagesDone', 'pagingDone', 'cursor', 'status');
    return { pages: Number(pages ?? 0), pagesDone: Number(pagesDone ?? 0), pagingDone: pagingDone === '1', cursor: cursor ?? undefined, status: (status ?? undefined) as RunStatus | undefined };
  }

  /**
   * Newest first; a filter looks through the latest 1,000 runs. Records are read in pipelined batches
   * (one round trip per batch, not per run), so a filter that matches few runs stays cheap to poll.
   */
  async list(filter: RunListFilter = {}): Promise<RunRecord[]> {
    const limit = filter.limit ?? 50;
    const filtered = Boolean(filter.status || filter.source || filter.search?.trim());
    const ids = await this.redis.zrevrange(this.keys.runIndex(), 0, filtered ? FILTER_WINDOW - 1 : limit - 1);
    const runs: RunRecord[] = [];
    for (let start = 0; start < ids.length && runs.length < limit; start += LIST_BATCH) {
      for (const h of await this.readRuns(ids.slice(start, start + LIST_BATCH))) {
        if (!h.id) continue; // expired since the index was read
        const run = toRecord(h);
        if (runMatches(run, filter)) runs.push(run);
        if (runs.length >= limit) break;
      }
    }
    return runs;
  }

  /**
   * Moves the run to `to` if it is in one of `from`; false when it was not. `fields` (a pause's
   * `resumeAt`, an end's `finishedAt`) are written in the same step, so nobody reads a paused run
   * that does not yet say when it resumes, or an ended one without its end time. An earlier
   * `resumeAt` goes unless `fields` sets a new one.
   */
  async transition(id: string, to: RunStatus, from: readonly RunStatus[], reason = '', fields: Record<string, string | number> = {}): Promise<boolean> {
    const r = (await runScript(this.redis, TRANSITION, 1, this.keys.run(id), to, reason, JSON.stringify(fields), ...from)) as number;
    if (r === -1) throw new Error(`run ${id} not found`);
    if (r === 1) await this.keep(id);
    return r === 1;
  }

  async setFields(id: string, fields: Record<string, string | number>): Promise<void> {
    await this.redis.hset(this.keys.run(id), fields);
  }

  /**
   * Saves where paging got to after page `pageIndex`: the next page's index and cursor (absent at the
   * end) and the page's counters. False, saving nothing, when another pager saved this page already.
   */
  async savePage(id: string, pageIndex: number, cursor: string | undefined, counters: Partial<RunCounters>): Promise<boolean> {
    const args = [String(pageIndex), String(pageIndex + 1), cursor === undefined ? '1' : '0', cursor ?? ''];
    for (const [name, n] of Object.entries(counters)) if (n) args.push(counterField(name), String(n));
    return ((await runScript(this.redis, SAVE_PAGE, 1, this.keys.run(id), ...args)) as number) === 1;
  }

  async incrementCounters(id: string, counters: Partial<RunCounters>): Promise<void> {
    const m = this.redis.multi();
    for (const [name, n] of Object.entries(counters)) if (n) m.hincrby(this.keys.run(id), counterField(name), n);
    await m.exec();
  }

  /**
   * Counts a page's chunk exactly once, with its report rows and their breakdown, and releases its
   * credit reservation, all in one atomic step (see COUNT_PAGE). False when the page had been counted already.
   */
  async countPage(id: string, pageIndex: number, counters: Partial<RunCounters>, rows: ReportRow[] = []): Promise<boolean> {
    const pairs: string[] = [];
    for (const [name, n] of Object.entries(counters)) if (n) pairs.push(counterField(name), String(n));
    const delta = breakdownDelta(rows);
    const args = [String(pageIndex), String(pairs.length / 2), String(delta.pairs.length / 2), String(delta.failures.length), String(FAILURES_KEPT), ...pairs, ...delta.pairs, ...delta.failures, ...rows.map((r) => JSON.stringify(r))];
    const k = this.keys;
    const r = (await runScript(this.redis, COUNT_PAGE, 7, k.run(id), k.pagesDone(id), k.report(id), k.breakdown(id), k.failures(id), k.reservations(id), k.looking(id), ...args)) as number;
    if (r === 1) await this.keep(id);
    return r === 1;
  }

  /**
   * Notes that `addresses` of page `pageIndex` (not counted yet) are verified or found cached: the run's
   * `checking` figure, so its progress follows verifications between pages (see NOTE_LOOKED).
   */
  async noteLooked(id: string, pageIndex: number, addresses: number): Promise<void> {
    const k = this.keys;
    await runScript(this.redis, NOTE_LOOKED, 3, k.run(id), k.looking(id), k.pagesDone(id), String(pageIndex), String(addresses));
  }

  /** How many times the run was resumed: tells a stop seen with old credentials from one seen with the new. */
  async resumeEpoch(id: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.run(id), 'resumes')) ?? 0);
  }

  async newResumeEpoch(id: string): Promise<number> {
    return this.redis.hincrby(this.keys.run(id), 'resumes', 1);
  }

  /** Where the run's credits counter lives: results bought are counted there as they are cached. */
  /** Where the run keeps its first answer for each address (run-answers.ts), kept as long as its other keys. */
  answers(id: string): RunAnswers {
    return { key: this.keys.answers(id), ttlMs: this.retentionMs };
  }

  /** Where the run's chunks keep what their writes started on the platform (write-progress.ts), kept as long as its other keys. */
  writeProgress(id: string): { key: string; ttlMs: number } {
    return { key: this.keys.writeProgress(id), ttlMs: this.retentionMs };
  }

  creditsCounter(id: string): { key: string; field: string; purchases: string } {
    return { key: this.keys.run(id), field: counterField('credits'), purchases: this.keys.purchases(id) };
  }

  /** Notes that page `pageIndex` began writing; true when an earlier attempt had begun already. */
  async markWriteStarted(id: string, pageIndex: number): Promise<boolean> {
    return (await this.redis.sadd(this.keys.writeStarted(id), String(pageIndex))) === 0;
  }

  /** Remembers the cursor page `pageIndex` is pulled from ('' for the first page). */
  async savePageCursor(id: string, pageIndex: number, cursor: string | undefined): Promise<void> {
    await this.redis.hset(this.keys.pageCursors(id), String(pageIndex), cursor ?? '');
  }

  /** The cursor page `pageIndex` was pulled from: undefined for the first page, null when not recorded. */
  async pageCursor(id: string, pageIndex: number): Promise<string | undefined | null> {
    const raw = await this.redis.hget(this.keys.pageCursors(id), String(pageIndex));
    if (raw === null) return null;
    return raw === '' ? undefined : raw;
  }

  async donePages(id: string): Promise<Set<number>> {
    return new Set((await this.redis.smembers(this.keys.pagesDone(id))).map(Number));
  }

  async isPageDone(id: string, pageIndex: number): Promise<boolean> {
    return (await this.redis.sismember(this.keys.pagesDone(id), String(pageIndex))) === 1;
  }

  /**
   * Reserves up to `want` credits for page `pageIndex` under the run's cap (replacing what an earlier
   * attempt of the page held): `grant` is what this chunk may spend, `others` what other pages hold
   * now (credits they may still spend, or give back).
   */
  async reserveCredits(id: string, pageIndex: number, want: number, cap: number): Promise<{ grant: number; others: number }> {
    const token = randomUUID().slice(0, 8);
    const [grant, others] = (await runScript(this.redis, RESERVE_CREDITS, 2, this.keys.run(id), this.keys.reservations(id), String(pageIndex), String(want), String(cap), token)) as [number, number];
    return { grant, others };
  }

  /** Gives back page `pageIndex`'s reservation (its chunk stopped before counting its page). */
  async releaseCredits(id: string, pageIndex: number): Promise<void> {
    await this.redis.hdel(this.keys.reservations(id), String(pageIndex));
  }

  /** Credits spent (the run's `credits`) and credits reserved by chunks verifying now, read at one moment. */
  async creditState(id: string): Promise<{ spent: number; reserved: number }> {
    const [spent, reserved] = (await runScript(this.redis, CREDIT_STATE, 2, this.keys.run(id), this.keys.reservations(id))) as [number, number];
    return { spent, reserved };
  }

  /** Each page's reservation as stored (`<credits>|<token>`), for the reconciler. */
  async reservations(id: string): Promise<Map<number, string>> {
    return new Map(Object.entries(await this.redis.hgetall(this.keys.reservations(id))).map(([page, held]) => [Number(page), held]));
  }

  /** Releases page `pageIndex`'s reservation if it is still `held` (a new attempt's is kept); true when released. */
  async releaseReservationIf(id: string, pageIndex: number, held: string): Promise<boolean> {
    return ((await runScript(this.redis, RELEASE_IF_SAME, 1, this.keys.reservations(id), String(pageIndex), held)) as number) === 1;
  }

  async tryComplete(id: string): Promise<boolean> {
    const completed = ((await runScript(this.redis, TRY_COMPLETE, 1, this.keys.run(id), new Date().toISOString())) as number) === 1;
    if (completed) await this.keep(id);
    return completed;
  }

  /** Adds report rows outside a page (re-checks) with their breakdown; `priorReasons` are the reasons the re-checked contacts had. */
  async appendReport(id: string, rows: ReportRow[], priorReasons: Record<string, string> = {}): Promise<void> {
    if (!rows.length) return;
    const delta = breakdownDelta(rows, priorReasons);
    const args = [String(delta.pairs.length / 2), String(delta.failures.length), String(FAILURES_KEPT), ...delta.pairs, ...delta.failures, ...rows.map((r) => JSON.stringify(r))];
    await runScript(this.redis, APPEND_REPORT, 3, this.keys.report(id), this.keys.breakdown(id), this.keys.failures(id), ...args);
    await this.keep(id);
  }

  /** Counts by risk and reason, and the first failures, kept as rows were added (cheap to poll). */
  breakdown(id: string): Promise<RunBreakdown> {
    return readBreakdown(this.redis, this.keys, id);
  }

  /** `count` report rows from row `start` (fewer at the end). */
  async reportSlice(id: string, start: number, count: number): Promise<ReportRow[]> {
    return (await this.redis.lrange(this.keys.report(id), start, start + count - 1)).map((row) => JSON.parse(row) as ReportRow);
  }

  async *report(id: string, batch = 1000): AsyncIterable<ReportRow> {
    for (let start = 0; ; start += batch) {
      const rows = await this.redis.lrange(this.keys.report(id), start, start + batch - 1);
      for (const row of rows) yield JSON.parse(row) as ReportRow;
      if (rows.length < batch) return;
    }
  }

  async park(id: string, jobId: string): Promise<void> {
    await this.redis.sadd(this.keys.parked(id), jobId);
  }

  /** What a run's log lines name: its id, connection and platform (read without the whole record). */
  async identity(id: string): Promise<{ id: string; connectionId?: string; platform?: string }> {
    const [connectionId, platform] = await this.redis.hmget(this.keys.run(id), 'connectionId', 'platform');
    return { id, connectionId: connectionId ?? undefined, platform: platform ?? undefined };
  }

  /** A parked chunk that went back to work (the run was resumed while it parked). */
  async unpark(id: string, jobId: string): Promise<void> {
    await this.redis.srem(this.keys.parked(id), jobId);
  }

  /** The next number of the run's pager jobs (a job cannot re-add its own id). */
  nextPagerSeq(id: string): Promise<number> {
    return this.redis.hincrby(this.keys.run(id), 'pagerSeq', 1);
  }

  async takeParked(id: string): Promise<string[]> {
    const [[, members]] = (await this.redis.multi().smembers(this.keys.parked(id)).del(this.keys.parked(id)).exec()) as [[Error | null, string[]], unknown];
    return members;
  }
}

/** How many of the latest runs a filtered list looks through, and how many it reads per round trip. */
const FILTER_WINDOW = 1000;
const LIST_BATCH = 100;

/** Whether `run` passes `filter` (the name searched is the one people see: given, or the scope in words). */
export function runMatches(run: RunRecord, filter: RunListFilter): boolean {
  if (filter.status && run.status !== filter.status) return false;
  if (filter.source && (run.platform === 'file' ? 'file' : 'platform') !== filter.source) return false;
  const words = filter.search?.trim().toLowerCase();
  if (words && ![runName(run), run.connectionLabel ?? ''].some((text) => text.toLowerCase().includes(words))) return false;
  return true;
}

function toRecord(h: Record<string, string>): RunRecord {
  const counters = {} as RunCounters;
  for (const name of COUNTER_NAMES) counters[name] = Number(h[counterField(name)] ?? 0);
  // Only sources that can have unreadable records (files) show the counter, and only when it counts some.
  if (!counters.unreadable) delete counters.unreadable;
  const run: RunRecord = {
    id: h.id!,
    platform: h.platform!,
    scope: h.scope!,
    options: JSON.parse(h.options ?? '{}') as RunOptions,
    status: h.status as RunStatus,
    counters,
    createdAt: h.createdAt!,
  };
  if (h.name) run.name = h.name;
  if (h.connectionId) run.connectionId = h.connectionId;
  if (h.connectionLabel) run.connectionLabel = h.connectionLabel;
  if (h.statusReason) run.statusReason = h.statusReason;
  if (h.resumeAt) run.resumeAt = Number(h.resumeAt);
  if (h.cursor) run.cursor = h.cursor;
  if (h.estimatedCredits) run.estimatedCredits = Number(h.estimatedCredits);
  if (h.expectedTotal) run.expectedTotal = Number(h.expectedTotal);
  if (h.startedAt) run.startedAt = h.startedAt;
  if (h.finishedAt) run.finishedAt = h.finishedAt;
  if (Number(h.looking) > 0) run.checking = Number(h.looking);
  return run;
}
