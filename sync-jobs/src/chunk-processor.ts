import {
  BatchVerifier,
  normalizeEmail,
  unknownVerification,
  type BatchReport,
  type Contact,
  type ContactResult,
  type Connector,
  type Verification,
  type VerificationCache,
  type SharedPurchases,
  type Verifier,
  type WriteFailure,
  type WriteOptions,
  type WriteReport,
} from '@verify-hub/core';
import type { ReportRow, RunCounters } from './contracts';
import { writeInBatches, type HostWriteOptions } from './host-write';
import { syncMetrics } from './metrics';

export interface ChunkDeps extends HostWriteOptions {
  connector: Connector;
  /** The engine, already under the shared limiter when there is one. */
  verifier: Verifier;
  cache?: VerificationCache;
  /**
   * Stores results the moment they are bought (default: `cache.setMany`). The queue passes one that
   * also adds the billable ones to the run's credits in the same Redis step, so neither a replayed
   * chunk nor a killed worker makes the run's credits differ from what the engine billed. It may
   * answer with the result the run already holds for an address (another chunk bought it first): that
   * one is written instead, so every record of the address gets the same values.
   */
  keepBought?: (bought: Verification[]) => Promise<Verification[] | void>;
  /** Verifications in flight at once within this chunk. */
  concurrency?: number;
  /** The purchases of the run's other chunks in this process (the in-process executor's pages). */
  shared?: SharedPurchases;
}

export interface ChunkInput {
  contacts: Contact[];
  /** The stored connection the contacts belong to, for per-account throughput (file runs have none). */
  connectionId?: string;
  writeOptions: WriteOptions;
  /** Credits this chunk may spend (the run's cap minus what others spent or reserved). */
  creditCap?: number;
  /** Names the purchases (the run): a replay after a crash collects answers already bought (BatchVerifierOptions.purchaseScope). */
  purchaseScope?: string;
  /** Results of an interrupted attempt of this chunk: used as they are, counted once, never re-bought. */
  prior?: Verification[];
  /**
   * Longest rate-limit wait done inside the chunk. The queue passes 0: a rate limit ends the attempt,
   * and the worker pauses its queue instead (no job attempt spent). Unset: wait as long as it takes.
   */
  maxRateLimitWaitMs?: number;
  /**
   * What to do when verification stops early (quota, auth, credit cap, rate limit beyond the allowed
   * wait): `return` writes nothing and hands back the results so far, so the caller can park or
   * retry the chunk; `write-as-unknown` writes every contact, those not verified as unknown
   * `not_checked` (the in-process executor, where a row must never be dropped).
   */
  whenStopped: 'return' | 'write-as-unknown';
  /** Build per-record report rows (the queue keeps them; `clean` writes its own output file). */
  collectReport?: boolean;
  signal?: AbortSignal;
  /**
   * Awaited just before the write, with every unique result of the chunk: lets the in-process
   * executor keep writes in page order, and the queue keep the results with the job, so a replay
   * writes the very same values (unknown results are not cached, and would come back with another time).
   */
  beforeWrite?: (results: Verification[]) => Promise<void>;
  /** The time of results made locally (rejected input, not checked): a replay passes the first attempt's. */
  now?: Date;
  /**
   * Asked after `beforeWrite`: true when an earlier attempt of this chunk may have written already (it
   * was killed mid-write); the contacts are then read again by id (`pullByIds`) just before writing,
   * so values already written compare equal and are skipped rather than written twice.
   */
  rereadBeforeWrite?: () => boolean;
  onVerified?: (v: Verification) => void;
  /** How many of the chunk's addresses have an answer so far (cached or verified), as it grows: for progress between writes. */
  onLooked?: (addresses: number) => void;
}

export type ChunkCounters = Omit<Required<RunCounters>, 'pulled' | 'skipped' | 'unreadable'>;

export interface ChunkOutcome {
  /** `stopped` only with `whenStopped: 'return'`: nothing was written. */
  status: 'done' | 'stopped';
  counters: ChunkCounters;
  /** Set when verification stopped early. */
  stopped?: BatchReport['stopped'];
  /** Every unique result obtained so far (prior ones included): what to carry into the next attempt. */
  results: Verification[];
  /** Contacts whose result is unknown: the caller schedules their re-check. */
  unknownContacts: Contact[];
  failures: WriteFailure[];
  report: ReportRow[];
}

/**
 * One page of contacts, start to finish: dedupe by normalised address, serve fresh results from the
 * cache, verify the rest (bounded concurrency, credit cap, shared limiter), write back through the
 * connector in the platform's batches (the connector skips values that did not change; a batch is
 * tried once more on a transient failure), and count everything per contact. The queue's `chunk` job and the in-process executor
 * of `clean` both call this one function.
 */
export async function processChunk(input: ChunkInput, deps: ChunkDeps): Promise<ChunkOutcome> {
  const priorByKey = new Map((input.prior ?? []).map((v) => [v.normalized, v]));
  const cacheHits = new Set<string>();
  // Answers the run already held for addresses this chunk bought again (keepBought): written instead.
  const heldByRun = new Map<string, Verification>();
  let looked = 0;
  const lookedMore = (n: number) => {
    looked += n;
    if (n > 0) input.onLooked?.(looked);
  };
  // Prior results answer first and are not counted as cache hits; the real cache answers the rest.
  const cache: VerificationCache = {
    getMany: async (keys) => {
      const found = new Map<string, Verification>();
      const rest: string[] = [];
      for (const k of keys) {
        const p = priorByKey.get(k);
        if (p) found.set(k, p);
        else rest.push(k);
      }
      if (deps.cache && rest.length) {
        for (const [k, v] of await deps.cache.getMany(rest)) {
          found.set(k, v);
          cacheHits.add(k);
        }
      }
      lookedMore(found.size);
      return found;
    },
    // Called by the batch the moment a result is bought: kept before anything else happens to it.
    setMany: async (results) => {
      if (!deps.keepBought) return deps.cache?.setMany(results);
      const kept = await deps.keepBought(results);
      kept?.forEach((v, i) => {
        if (v !== results[i]) heldByRun.set(v.normalized, v);
      });
    },
  };

  const batch = new BatchVerifier(deps.verifier, { concurrency: deps.concurrency ?? 10, cache, shared: deps.shared });
  const emails = input.contacts.map((c) => c.email);
  const report: BatchReport = await batch.verifyAll(emails, {
    creditCap: input.creditCap,
    purchaseScope: input.purchaseScope,
    maxRateLimitWaitMs: input.maxRateLimitWaitMs,
    signal: input.signal,
    onResult: (v) => {
      input.onVerified?.(v);
      lookedMore(1);
    },
    now: input.now ? () => input.now! : undefined,
  });

  // What this chunk bought for an address the run already had an answer for is replaced by that answer.
  report.results.forEach((v, i) => {
    if (v) report.results[i] = heldByRun.get(v.normalized) ?? v;
  });
  // An answer another chunk bought counts as a cache hit here: it was not bought by this chunk.
  for (const key of report.servedByOthers) cacheHits.add(key);
  const unique = new Map<string, Verification>();
  report.results.forEach((v, i) => {
    const n = normalizeEmail(input.contacts[i]!.email);
    if (v && n.ok) unique.set(n.normalized, v);
  });
  const carried = [...unique.values()];
  const counters: ChunkCounters = { cached: 0, verified: 0, rejected: 0, unknown: 0, written: 0, unchanged: 0, failed: 0, credits: 0 };

  if (report.stopped && input.whenStopped === 'return') {
    return { status: 'stopped', counters, stopped: report.stopped, results: carried, unknownContacts: [], failures: [], report: [] };
  }

  const results: ContactResult[] = [];
  const unknownContacts: Contact[] = [];
  input.contacts.forEach((contact, i) => {
    const n = normalizeEmail(contact.email);
    let v = report.results[i];
    if (!n.ok) counters.rejected++;
    else if (!v) v = unknownVerification(contact.email, n.normalized, 'not_checked', input.now);
    else if (cacheHits.has(n.normalized)) counters.cached++;
    else counters.verified++;
    if (v!.risk === 'unknown') {
      counters.unknown++;
      if (n.ok) unknownContacts.push(contact);
    }
    syncMetrics.verifications.inc({ risk: v!.risk, source: !n.ok ? 'rejected' : cacheHits.has(n.normalized) ? 'cache' : 'engine' });
    results.push({ contact, verification: v! });
  });
  // Credits: what this attempt bought plus what earlier attempts bought for this chunk.
  counters.credits = report.counters.credits + [...priorByKey.values()].filter((v) => v.billable).length;

  await input.beforeWrite?.(carried);
  if (input.rereadBeforeWrite?.()) await rereadContacts(deps.connector, results);
  const written = await writePage(deps, results, input.writeOptions, counters);
  const platform = deps.connector.platform;
  syncMetrics.contactsProcessed.inc({ platform }, input.contacts.length);
  if (input.connectionId) syncMetrics.connectionContacts.inc({ connection: input.connectionId }, input.contacts.length);
  syncMetrics.credits.inc({ platform }, counters.credits);
  syncMetrics.writes.inc({ platform, outcome: 'written' }, counters.written);
  syncMetrics.writes.inc({ platform, outcome: 'unchanged' }, counters.unchanged);
  if (counters.failed) {
    syncMetrics.writes.inc({ platform, outcome: 'failed' }, counters.failed);
    syncMetrics.errors.inc({ kind: 'write_failed' }, counters.failed);
  }

  return {
    status: 'done',
    counters,
    stopped: report.stopped,
    results: carried,
    unknownContacts,
    failures: written.failed,
    report: input.collectReport ? reportRows(results, written, input.writeOptions) : [],
  };
}

/**
 * Replaces what each contact holds now (`current`, tags, status, and the payload the connector reads
 * at write time, such as the ids of its tags) with the platform's own values. A payload the re-read
 * does not give (a connector that keeps it from the page only) stays as pulled.
 */
async function rereadContacts(connector: Connector, results: ContactResult[]): Promise<void> {
  if (!connector.pullByIds || results.length === 0) return;
  const now = new Map((await connector.pullByIds(results.map((r) => r.contact.id))).map((c) => [c.id, c]));
  for (const r of results) {
    const fresh = now.get(r.contact.id);
    if (fresh) r.contact = { ...r.contact, current: fresh.current, tags: fresh.tags, status: fresh.status, payload: fresh.payload ?? r.contact.payload };
  }
}

/** A page written through the host's write layer (`writeInBatches`), its outcome counted. */
async function writePage(deps: ChunkDeps, results: ContactResult[], options: WriteOptions, counters: ChunkCounters): Promise<WriteReport> {
  const total = await writeInBatches(deps.connector, results, options, deps);
  counters.written += total.written;
  counters.unchanged += total.unchanged.length;
  counters.failed += total.failed.length;
  return total;
}

/**
 * One row per contact, from what the connector said of that contact: `failed` (with the reason) when
 * listed in `failed`, `unchanged` when listed in `unchanged` (it holds those values already, dry run
 * or not), else `dry_run` on a dry run (it would be written) and `written` otherwise.
 */
function reportRows(results: ContactResult[], report: WriteReport, options: WriteOptions): ReportRow[] {
  const failed = new Map(report.failed.map((f) => [f.contactId, f.reason]));
  const unchanged = new Set(report.unchanged);
  return results.map(({ contact, verification: v }) => {
    const error = failed.get(contact.id);
    const outcome = error !== undefined ? 'failed' : unchanged.has(contact.id) ? 'unchanged' : options.dryRun ? 'dry_run' : 'written';
    const row: ReportRow = { contactId: contact.id, email: contact.email, risk: v.risk, score: v.score, reason: v.reason, outcome };
    if (error !== undefined) row.error = error;
    return row;
  });
}
