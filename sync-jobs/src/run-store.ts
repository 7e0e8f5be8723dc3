import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { runName } from '@verify-hub/core';
import type { ReportRow, RunBreakdown, RunCounters, RunListFilter, RunOptions, RunProgress, RunRecord, RunStatus, StartRunRequest } from './contracts';
import { Keys } from './keys';
import { breakdownDelta, FAILURES_KEPT, readBreakdown } from './run-breakdown';

export const COUNTER_NAMES = ['pulled', 'skipped', 'unreadable', 'cached', 'verified', 'rejected', 'unknown', 'written', 'unchanged', 'failed', 'credits'] as const satisfies readonly (keyof RunCounters)[];

export const emptyCounters = (): Required<RunCounters> => ({ pulled: 0, skipped: 0, unreadable: 0, cached: 0, verified: 0, rejected: 0, unknown: 0, written: 0, unchanged: 0, failed: 0, credits: 0 });

export const FINISHED: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

/** The statusReason of a run a user paused (a run paused on a quota, a key or the credit cap says why instead). */
export const USER_PAUSE_REASON = 'paused by a user';

/** Counters live as `n:<name>` fields of the run hash, so HINCRBY updates them atomically. */
const counterField = (name: string) => `n:${name}`;

/**
 * Adds report rows with their breakdown delta (see run-breakdown.ts): ARGV from `i` holds `nPairs`
 * (field, delta) pairs for the breakdown hash, then `nFailures` failed rows (kept while the list
 * has room), then the rows. Shared by COUNT_PAGE and APPEND_REPORT.
 */
const ADD_ROWS = `
local function add_rows(report, breakdown, failures, i, nPairs, nFailures, keep)
  for _ = 1, nPairs do redis.call('HINCRBY', breakdown, ARGV[i], ARGV[i + 1]); i = i + 2 end
  local room = keep - redis.call('LLEN', failures)
  for _ = 1, nFailures do
    if room > 0 then redis.call('RPUSH', failures, ARGV[i]); room = room - 1 end
    i = i + 1
  end
  for j = i, #ARGV do redis.call('RPUSH', report, ARGV[j]) end
end`;

/**
 * Marks a page's chunk done and adds its counters, report rows and breakdown in one step, releasing
 * the page's credit reservation; a page already counted (a chunk delivered twice after a crash)
 * changes nothing. Returns 1 when counted, 0 when already done. ARGV: page, counter pairs, breakdown
 * pairs, failures, kept failures, then the lists.
 */
const COUNT_PAGE = `${ADD_ROWS}
redis.call('HDEL', KEYS[6], ARGV[1])
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
local counterPairs = tonumber(ARGV[2])
local i = 6
for _ = 1, counterPairs do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
add_rows(KEYS[3], KEYS[4], KEYS[5], i, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
redis.call('HINCRBY', KEYS[1], 'pagesDone', 1)
return 1`;

/** Report rows outside a page (re-checks), with their breakdown. ARGV: breakdown pairs, failures, kept failures, then the lists. */
const APPEND_REPORT = `${ADD_ROWS}
add_rows(KEYS[1], KEYS[2], KEYS[3], 4, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return 1`;

/**
 * Saves where paging got to, only if no other pager saved this page first (pages == ARGV[1]): two
 * pagers of one run (a pause and a quick resume) cannot both count a page; the one that loses stops.
 * ARGV: page, next page, '1' when the source ended, cursor, then counter pairs.
 */
const SAVE_PAGE = `
if tonumber(redis.call('HGET', KEYS[1], 'pages') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'pages', ARGV[2])
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'cursor')
  redis.call('HSET', KEYS[1], 'pagingDone', '1')
else
  redis.call('HSET', KEYS[1], 'cursor', ARGV[4])
end
for i = 5, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;

/** Completes a running run once: paging done and every enqueued page counted. Returns 1 when it did. */
const TRY_COMPLETE = `
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'running' then return 0 end
if redis.call('HGET', KEYS[1], 'pagingDone') ~= '1' then return 0 end
local pages = tonumber(redis.call('HGET', KEYS[1], 'pages') or '0')
local done = tonumber(redis.call('HGET', KEYS[1], 'pagesDone') or '0')
if done < pages then return 0 end
redis.call('HSET', KEYS[1], 'status', 'completed', 'finishedAt', ARGV[1])
redis.call('HDEL', KEYS[1], 'statusReason', 'resumeAt')
return 1`;

/** The credits held in a reservations hash (values `<credits>|<token>`), all pages or all but ARGV[1]. */
const SUM_RESERVED = `
local function sum_reserved(key, except)
  local fields = redis.call('HGETALL', key)
  local total = 0
  for i = 1, #fields, 2 do
    if fields[i] ~= except then total = total + tonumber(string.match(fields[i + 1], '^(%d+)')) end
  end
  return total
end`;

/**
 * Reserves up to ARGV[2] credits for page ARGV[1] under the run's cap ARGV[3]: what the cap leaves
 * after the credits spent (`n:credits`) and those other pages hold. The page's own earlier
 * reservation (an attempt killed mid-way) is replaced, never added to. Returns {grant, held by others}.
 */
const RESERVE_CREDITS = `${SUM_RESERVED}
local want = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local others = sum_reserved(KEYS[2], ARGV[1])
local used = tonumber(redis.call('HGET', KEYS[1], 'n:credits') or '0')
local grant = math.max(0, math.min(want, cap - used - others))
if grant > 0 then redis.call('HSET', KEYS[2], ARGV[1], grant .. '|' .. ARGV[4]) else redis.call('HDEL', KEYS[2], ARGV[1]) end
return {grant, others}`;

/** Credits spent and credits reserved now, read together: {spent, reserved}. */
const CREDIT_STATE = `${SUM_RESERVED}
return {tonumber(redis.call('HGET', KEYS[1], 'n:credits') or '0'), sum_reserved(KEYS[2], '')}`;

/** Releases page ARGV[1]'s reservation only if it is still the one read (ARGV[2]): a new attempt's is kept. */
const RELEASE_IF_SAME = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

/** Changes a run's status only from one of the allowed states; returns 1 when it did. */
const TRANSITION = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return -1 end
for i = 3, #ARGV do if s == ARGV[i] then
  redis.call('HSET', KEYS[1], 'status', ARGV[1])
  if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'statusReason') else redis.call('HSET', KEYS[1], 'statusReason', ARGV[2]) end
  return 1
end end
return 0`;

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

  /** Moves the run to `to` if it is in one of `from`; false when it was not. */
  async transition(id: string, to: RunStatus, from: readonly RunStatus[], reason = ''): Promise<boolean> {
    const r = (await this.redis.eval(TRANSITION, 1, this.keys.run(id), to, reason, ...from)) as number;
    if (r === -1) throw new Error(`run ${id} not found`);
    if (r === 1) await this.keep(id);
    return r === 1;
  }

  async setFields(id: string, fields: Record<string, string | number>): Promise<void> {
    await this.redis.hset(this.keys.run(id), fields);
  }

  async deleteFields(id: string, ...names: string[]): Promise<void> {
    if (names.length) await this.redis.hdel(this.keys.run(id), ...names);
  }

  /**
   * Saves where paging got to after page `pageIndex`: the next page's index and cursor (absent at the
   * end) and the page's counters. False, saving nothing, when another pager saved this page already.
   */
  async savePage(id: string, pageIndex: number, cursor: string | undefined, counters: Partial<RunCounters>): Promise<boolean> {
    const args = [String(pageIndex), String(pageIndex + 1), cursor === undefined ? '1' : '0', cursor ?? ''];
    for (const [name, n] of Object.entries(counters)) if (n) args.push(counterField(name), String(n));
    return ((await this.redis.eval(SAVE_PAGE, 1, this.keys.run(id), ...args)) as number) === 1;
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
    const r = (await this.redis.eval(COUNT_PAGE, 6, k.run(id), k.pagesDone(id), k.report(id), k.breakdown(id), k.failures(id), k.reservations(id), ...args)) as number;
    if (r === 1) await this.keep(id);
    return r === 1;
  }

  /** How many times the run was resumed: tells a stop seen with old credentials from one seen with the new. */
  async resumeEpoch(id: string): Promise<number> {
    return Number((await this.redis.hget(this.keys.run(id), 'resumes')) ?? 0);
  }

  async newResumeEpoch(id: string): Promise<number> {
    return this.redis.hincrby(this.keys.run(id), 'resumes', 1);
  }

  /** Where the run's credits counter lives: results bought are counted there as they are cached. */
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
    const [grant, others] = (await this.redis.eval(RESERVE_CREDITS, 2, this.keys.run(id), this.keys.reservations(id), String(pageIndex), String(want), String(cap), token)) as [number, number];
    return { grant, others };
  }

  /** Gives back page `pageIndex`'s reservation (its chunk stopped before counting its page). */
  async releaseCredits(id: string, pageIndex: number): Promise<void> {
    await this.redis.hdel(this.keys.reservations(id), String(pageIndex));
  }

  /** Credits spent (the run's `credits`) and credits reserved by chunks verifying now, read at one moment. */
  async creditState(id: string): Promise<{ spent: number; reserved: number }> {
    const [spent, reserved] = (await this.redis.eval(CREDIT_STATE, 2, this.keys.run(id), this.keys.reservations(id))) as [number, number];
    return { spent, reserved };
  }

  /** Each page's reservation as stored (`<credits>|<token>`), for the reconciler. */
  async reservations(id: string): Promise<Map<number, string>> {
    return new Map(Object.entries(await this.redis.hgetall(this.keys.reservations(id))).map(([page, held]) => [Number(page), held]));
  }

  /** Releases page `pageIndex`'s reservation if it is still `held` (a new attempt's is kept); true when released. */
  async releaseReservationIf(id: string, pageIndex: number, held: string): Promise<boolean> {
    return ((await this.redis.eval(RELEASE_IF_SAME, 1, this.keys.reservations(id), String(pageIndex), held)) as number) === 1;
  }

  async tryComplete(id: string): Promise<boolean> {
    const completed = ((await this.redis.eval(TRY_COMPLETE, 1, this.keys.run(id), new Date().toISOString())) as number) === 1;
    if (completed) await this.keep(id);
    return completed;
  }

  /** Adds report rows outside a page (re-checks) with their breakdown; `priorReasons` are the reasons the re-checked contacts had. */
  async appendReport(id: string, rows: ReportRow[], priorReasons: Record<string, string> = {}): Promise<void> {
    if (!rows.length) return;
    const delta = breakdownDelta(rows, priorReasons);
    const args = [String(delta.pairs.length / 2), String(delta.failures.length), String(FAILURES_KEPT), ...delta.pairs, ...delta.failures, ...rows.map((r) => JSON.stringify(r))];
    await this.redis.eval(APPEND_REPORT, 3, this.keys.report(id), this.keys.breakdown(id), this.keys.failures(id), ...args);
    await this.keep(id);
  }

  /** Counts by risk and reason, and the first failures, kept as rows were added (cheap to poll). */
  breakdown(id: string): Promise<RunBreakdown> {
    return readBreakdown(this.redis, this.keys, id);
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
  return run;
}
