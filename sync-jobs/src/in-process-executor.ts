import { normalizeEmail, SharedPurchases, type Connector, type Scope, type VerificationCache, type Verifier, type WriteOptions } from '@verify-hub/core';
import { processChunk, type ChunkOutcome } from './chunk-processor';
import type { RunCounters } from './contracts';
import { emptyCounters } from './run-store';

export interface InProcessRunOptions {
  connector: Connector;
  scope: Scope;
  verifier: Verifier;
  cache?: VerificationCache;
  writeOptions?: WriteOptions;
  /** Never spend more than this many credits; contacts beyond it are written as unknown `not_checked`. */
  creditCap?: number;
  /** Names the run's purchases, so a replay collects answers already bought (ChunkInput.purchaseScope). */
  purchaseScope?: string;
  /** Pages verified at once (default 2); writes still happen in page order. */
  pageConcurrency?: number;
  /** The platform's write batch size (`PlatformModule.writeBatchSize`): each page is written in batches of it. */
  writeBatchSize?: number;
  /** Verifications in flight per page (default 10). */
  verifyConcurrency?: number;
  signal?: AbortSignal;
  /** Per-record report rows in each page's outcome (for `onPage`). */
  collectReport?: boolean;
  /** Called after each page is written, in page order, with its outcome (the queue records it). */
  onPage?: (page: { index: number; contacts: number; skipped: number; unreadable: number }, outcome: ChunkOutcome) => Promise<void>;
  /** How many addresses of page `pageIndex` have an answer so far (cached or verified), as it grows. */
  onPageLooked?: (pageIndex: number, addresses: number) => void;
  /** Called after each page is written, and for every verification (for a progress bar). */
  onProgress?: (progress: { counters: Required<RunCounters>; pages: number; verifiedNow: number; creditsNow: number }) => void;
}

export interface InProcessRunResult {
  counters: Required<RunCounters>;
  pages: number;
  /** Set when verification stopped early (quota, auth, credit cap): the rest was written as unknown. */
  stopped?: { reason: string; message: string; resumeAt?: number };
}

/**
 * The sync pipeline without Redis: pages the source and runs the same `processChunk` as the queue,
 * a few pages at a time, keeping memory flat (at most `pageConcurrency + 1` pages held). Rate
 * limits are waited out in place; after quota, auth or the credit cap, the remaining contacts are
 * still written (as unknown `not_checked`, cached results as they are), so no row is ever dropped.
 */
export async function runInProcess(options: InProcessRunOptions): Promise<InProcessRunResult> {
  const counters = emptyCounters();
  const pageConcurrency = Math.max(1, options.pageConcurrency ?? 2);
  const inFlight = new Set<Promise<void>>();
  const failures: unknown[] = [];
  let stopped: InProcessRunResult['stopped'];
  let reserved = 0;
  let pages = 0;
  let verifiedNow = 0;
  // Billable results as they arrive: `counters.credits` moves only when a page is done (a file is one or two pages).
  let creditsNow = 0;
  let previousWrite: Promise<void> = Promise.resolve();
  let cursor: string | undefined;

  const report = () => options.onProgress?.({ counters, pages, verifiedNow, creditsNow });
  // Pages verified side by side never buy the same address twice (SharedPurchases).
  const shared = new SharedPurchases();

  do {
    if (options.signal?.aborted) break;
    const page = await options.connector.pull(options.scope, cursor);
    pages++;
    counters.pulled += page.contacts.length;
    for (const n of Object.values(page.skipped ?? {})) counters.skipped += n;
    // A file's records that could not be parsed: counted apart, so a run says how many were not read.
    const unreadable = page.skipped?.unparseable ?? 0;
    counters.unreadable += unreadable;

    // Under a cap, a page starts once the pages before it are done: its share is then what the cap
    // really leaves. Shares reserved ahead for pages still running starved the next page (a share of 0
    // read as "cap reached", stopping a limit of 500 at 115 credits).
    if (options.creditCap !== undefined) {
      await Promise.all(inFlight);
      if (options.signal?.aborted) break; // the page before ended the run (the queue stops a file run at its limit)
    }
    // Credits this page may spend: at most one per unique address, within what the cap leaves.
    const pageIndex = pages - 1;
    const pageInfo = { index: pageIndex, contacts: page.contacts.length, skipped: Object.values(page.skipped ?? {}).reduce((a, b) => a + b, 0), unreadable };
    const unique = new Set(page.contacts.map((c) => normalizeEmail(c.email)).filter((n) => n.ok).map((n) => (n as { normalized: string }).normalized)).size;
    const grant = stopped ? 0 : options.creditCap === undefined ? undefined : Math.max(0, Math.min(unique, options.creditCap - counters.credits - reserved));
    reserved += grant ?? 0;

    const myTurn = previousWrite;
    let release!: () => void;
    previousWrite = new Promise<void>((resolve) => (release = resolve));
    const task = processChunk(
      {
        contacts: page.contacts,
        writeOptions: options.writeOptions ?? {},
        creditCap: grant,
        purchaseScope: options.purchaseScope,
        whenStopped: 'write-as-unknown',
        collectReport: options.collectReport,
        signal: options.signal,
        beforeWrite: () => myTurn,
        onLooked: options.onPageLooked && ((addresses) => options.onPageLooked!(pageIndex, addresses)),
        onVerified: (v) => {
          verifiedNow++;
          if (v.billable) creditsNow++;
          report();
        },
      },
      { connector: options.connector, verifier: options.verifier, cache: options.cache, concurrency: options.verifyConcurrency ?? 10, shared, writeBatchSize: options.writeBatchSize },
    )
      .then(async (outcome: ChunkOutcome) => {
        await options.onPage?.(pageInfo, outcome);
        reserved -= grant ?? 0;
        for (const [name, n] of Object.entries(outcome.counters)) counters[name as keyof typeof counters] += n;
        // A page that merely ran out of its share of a cap is not a stop unless the cap is spent.
        if (outcome.stopped && !stopped && (outcome.stopped.reason !== 'credit_cap' || grant === 0 || counters.credits >= (options.creditCap ?? Infinity))) {
          stopped = { reason: outcome.stopped.reason, message: outcome.stopped.message, resumeAt: outcome.stopped.resumeAt };
        }
        report();
      })
      .catch((error: unknown) => {
        failures.push(error);
      })
      .finally(() => release());
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
    if (inFlight.size >= pageConcurrency) await Promise.race(inFlight);
    if (failures.length) break;
    cursor = page.next;
  } while (cursor !== undefined);

  await Promise.all(inFlight);
  if (failures.length) throw failures[0];
  return { counters, pages, stopped };
}
