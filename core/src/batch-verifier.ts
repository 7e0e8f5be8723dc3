import { createHash } from 'node:crypto';
import type { VerificationCache } from './cache';
import { AuthError, QuotaError, RateLimitError, VerifyHubError } from './errors';
import { normalizeEmail } from './normalize';
import { sleep } from './retry';
import type { SharedPurchases } from './shared-purchases';
import type { Verifier } from './verifier';
import { syntaxInvalidVerification, unknownVerification, type Verification } from './verification';

export interface BatchCounters {
  /** Addresses given, duplicates included. */
  asked: number;
  /** Inputs dropped because an earlier input had the same normalised address. */
  deduped: number;
  /** Rejected locally (empty, no @, too long): no engine call, no credit. */
  rejected: number;
  /** Served from the cache: no engine call, no credit. */
  cached: number;
  /** Answered by the engine (any risk, unknown included). */
  verified: number;
  /** Results whose risk is unknown (engine said so, or it stayed unreachable). */
  unknown: number;
  /** Billable results: what the batch cost. */
  credits: number;
  /** Times the batch waited for an engine rate-limit reset. */
  rateLimitWaits: number;
}

export type StopReason = 'auth' | 'quota' | 'credit_cap' | 'aborted';

export interface BatchReport {
  /** One entry per input, in input order; undefined where the batch stopped before reaching it. */
  results: (Verification | undefined)[];
  counters: BatchCounters;
  /** Set when the batch ended early; `pending` then lists the unique addresses not verified. */
  stopped?: { reason: StopReason; message: string; error?: VerifyHubError; resumeAt?: number };
  pending: string[];
  /** Addresses answered by another batch's purchase (`shared`): counted as cached, no credit. */
  servedByOthers: string[];
}

export interface BatchVerifierOptions {
  concurrency?: number;
  cache?: VerificationCache;
  /** Never spend more than this many credits; addresses beyond it stay pending. */
  creditCap?: number;
  /**
   * Names the purchases of one unit of work (a run): each address is asked with an idempotency key made
   * from this and the address, so a replay of the work after a crash collects what the engine already
   * answered instead of buying it again (VerifyOptions.idempotencyKey). Unset: no key is sent.
   */
  purchaseScope?: string;
  /** Longest single wait for a rate-limit reset before giving up as `aborted`. */
  maxRateLimitWaitMs?: number;
  /** Purchases of other batches of the same run running at once: an address one of them buys is not bought again. */
  shared?: SharedPurchases;
  signal?: AbortSignal;
  onResult?: (result: Verification, counters: Readonly<BatchCounters>) => void;
  /**
   * The time given to results made here (rejected input, a verifier that broke its contract). A
   * caller replaying a batch passes the first attempt's time, so a replay writes the same values.
   */
  now?: () => Date;
}

/** A batch's inputs once normalised and deduplicated. */
interface PreparedBatch {
  emails: readonly string[];
  counters: BatchCounters;
  /** normalized -> the input spelling verified */
  firstInputOf: Map<string, string>;
  keyOfInput: (string | undefined)[];
  results: (Verification | undefined)[];
}

/**
 * Verifies many addresses: dedupes by normalised address, serves fresh results from the cache, sends
 * the rest to the `Verifier` with bounded concurrency, waits out engine rate limits (every worker
 * pauses together until the reset), and stops cleanly on auth, quota or credit cap with all it has
 * done so far. The credit cap is never exceeded: a new verification starts only while credits spent
 * plus verifications in flight stay under the cap.
 */
export class BatchVerifier {
  constructor(private readonly verifier: Verifier, private readonly options: BatchVerifierOptions = {}) {}

  async verifyAll(emails: readonly string[], overrides: Partial<BatchVerifierOptions> = {}): Promise<BatchReport> {
    const opts = { ...this.options, ...overrides };
    const counters: BatchCounters = { asked: emails.length, deduped: 0, rejected: 0, cached: 0, verified: 0, unknown: 0, credits: 0, rateLimitWaits: 0 };
    const firstInputOf = new Map<string, string>(); // normalized -> the input spelling verified
    const keyOfInput: (string | undefined)[] = [];
    const results: (Verification | undefined)[] = new Array(emails.length);

    emails.forEach((email, i) => {
      const n = normalizeEmail(email);
      if (!n.ok) {
        results[i] = syntaxInvalidVerification(String(email ?? ''), opts.now?.());
        counters.rejected++;
        return;
      }
      keyOfInput[i] = n.normalized;
      if (firstInputOf.has(n.normalized)) counters.deduped++;
      else firstInputOf.set(n.normalized, String(email));
    });

    // A ticket with the run's other batches, taken before the cache is read (SharedPurchases).
    const ticket = opts.shared?.begin();
    try {
      return await this.verifyUnique(opts, { emails, counters, firstInputOf, keyOfInput, results }, ticket);
    } finally {
      if (ticket !== undefined) opts.shared!.end(ticket);
    }
  }

  private async verifyUnique(opts: BatchVerifierOptions, batch: PreparedBatch, ticket: number | undefined): Promise<BatchReport> {
    const { emails, counters, firstInputOf, keyOfInput, results } = batch;
    const shared = opts.shared;
    const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 10));
    const byKey = new Map<string, Verification>();
    const servedByOthers: string[] = [];
    let todo = [...firstInputOf.keys()];
    if (opts.cache && todo.length > 0) {
      const hits = await opts.cache.getMany(todo);
      for (const [key, v] of hits) byKey.set(key, v);
      counters.cached = hits.size;
      todo = todo.filter((k) => !hits.has(k));
    }

    let stopped: BatchReport['stopped'];
    let storeFailure: { error: unknown } | undefined;
    let inFlight = 0;
    let resumeAt = 0; // shared rate-limit gate
    let next = 0;
    const pendingAgain: string[] = [];

    const takeNext = (): string | undefined => {
      if (stopped || storeFailure) return undefined;
      if (opts.creditCap !== undefined && counters.credits + inFlight >= opts.creditCap) return undefined;
      return pendingAgain.pop() ?? (next < todo.length ? todo[next++] : undefined);
    };

    const stop = (reason: StopReason, message: string, error?: VerifyHubError, at?: number) => {
      if (!stopped) stopped = { reason, message, error, resumeAt: at };
    };

    const worker = async (): Promise<void> => {
      for (;;) {
        if (opts.signal?.aborted) return stop('aborted', 'the batch was cancelled');
        const wait = resumeAt - Date.now();
        if (wait > 0) {
          try {
            await sleep(wait, opts.signal);
          } catch {
            return stop('aborted', 'the batch was cancelled');
          }
          continue;
        }
        const key = takeNext();
        if (key === undefined) return;
        inFlight++;
        // Bought by another batch of the run meanwhile, or being bought: its answer, no second purchase.
        const other = shared ? await answerOfOtherBatch(shared, key, ticket!) : undefined;
        if (other) {
          inFlight--;
          byKey.set(key, other);
          counters.cached++;
          servedByOthers.push(key);
          continue;
        }
        let bought: Verification | undefined;
        try {
          const v = await this.verifier.verify(firstInputOf.get(key)!, { signal: opts.signal, ...(opts.purchaseScope ? { idempotencyKey: purchaseKey(opts.purchaseScope, key) } : {}) });
          byKey.set(key, v);
          counters.verified++;
          if (v.risk === 'unknown') counters.unknown++;
          if (v.billable) counters.credits++;
          // Stored the moment it is bought, so a batch killed later never buys it again. A store
          // that fails ends the batch with that error (the result is not lost in a wrong verdict).
          try {
            await opts.cache?.setMany([v]);
          } catch (error) {
            storeFailure ??= { error };
            return;
          }
          bought = v;
          opts.onResult?.(v, counters);
        } catch (error) {
          if (error instanceof QuotaError) {
            pendingAgain.push(key);
            stop('quota', error.message, error, error.resetAt);
          } else if (error instanceof RateLimitError) {
            pendingAgain.push(key);
            const waitMs = error.waitMs();
            if (opts.maxRateLimitWaitMs !== undefined && waitMs > opts.maxRateLimitWaitMs) {
              stop('aborted', `engine rate limit resets in ${Math.ceil(waitMs / 1000)} s, beyond the allowed wait`, error, error.resetAt);
            } else {
              counters.rateLimitWaits++;
              resumeAt = Math.max(resumeAt, error.resetAt);
            }
          } else if (error instanceof AuthError) {
            pendingAgain.push(key);
            stop('auth', error.message, error);
          } else if (opts.signal?.aborted) {
            pendingAgain.push(key);
            stop('aborted', 'the batch was cancelled');
          } else {
            // A verifier broke its contract; the address is kept as unknown rather than lost.
            const v = unknownVerification(firstInputOf.get(key)!, key, 'verifier_error', opts.now?.());
            byKey.set(key, v);
            counters.verified++;
            counters.unknown++;
            bought = v;
            opts.onResult?.(v, counters);
          }
        } finally {
          inFlight--;
          shared?.settle(key, bought);
        }
      }
    };

    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, worker));
    if (storeFailure) throw storeFailure.error;

    if (!stopped && opts.creditCap !== undefined && byKey.size < firstInputOf.size) {
      stop('credit_cap', `credit cap of ${opts.creditCap} reached`);
    }
    emails.forEach((_e, i) => {
      const key = keyOfInput[i];
      if (key !== undefined) results[i] = byKey.get(key);
    });
    const pending = [...firstInputOf.keys()].filter((k) => !byKey.has(k));
    return { results, counters, stopped, pending, servedByOthers };
  }
}

/** The answer another batch bought for `key`; undefined when this batch is to buy it (it then holds the claim). */
async function answerOfOtherBatch(shared: SharedPurchases, key: string, ticket: number): Promise<Verification | undefined> {
  for (;;) {
    const elsewhere = shared.claim(key, ticket);
    if (!elsewhere) return undefined;
    const answer = await elsewhere;
    // The other batch got no answer (stopped, or its store failed): claim again, and buy it unless yet another batch is.
    if (answer) return answer;
  }
}

/** The idempotency key of one address's purchase within a scope: a digest, so neither part travels in clear. */
export function purchaseKey(scope: string, normalized: string): string {
  return createHash('sha256').update(`${scope}\n${normalized}`).digest('hex');
}
