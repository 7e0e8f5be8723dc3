import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What `Idempotency-Key` may be: 1-255 visible ASCII characters (Stripe's rule, widely copied). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** How long a billed answer is kept for its key: a replay after a crash comes within minutes, not days. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** How long a key is held while its first request is answered (an engine process killed mid-way lets go after it). */
const PENDING_TTL_MS = 60_000;
const PENDING = 'pending';

export type IdempotencyClaim =
  | { kind: 'new' }
  | { kind: 'replay'; answer: Record<string, unknown> }
  | { kind: 'in_progress' }
  | { kind: 'other_address' };

/**
 * Answers kept by `Idempotency-Key`, per account (a verify-hub extension of the engine API: engine/README.md).
 * A request under a key already answered with a billed result gets that answer again, not billed; one
 * whose first request is still being answered is told to try again (409). Only billed answers are kept:
 * asking again after an `unknown` verifies afresh. Keys are stored as digests: nothing the client sent
 * is kept in clear.
 *
 * Layout under the engine's key prefix: `idem:<account>:<sha256 of the key>` -> `pending`, or the JSON
 * `{ "email": <normalised address>, "answer": <the 200 body> }`.
 */
export class IdempotencyStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'vh:engine:', private readonly ttlSeconds = IDEMPOTENCY_TTL_SECONDS) {}

  static isValidKey(key: string): boolean {
    return KEY_PATTERN.test(key);
  }

  private slot(account: string, key: string): string {
    return `${this.prefix}idem:${account}:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
  }

  /** Takes the key for a new request, or says what was already done under it. */
  async claim(account: string, key: string, email: string): Promise<IdempotencyClaim> {
    const slot = this.slot(account, key);
    if ((await this.redis.set(slot, PENDING, 'PX', PENDING_TTL_MS, 'NX')) === 'OK') return { kind: 'new' };
    const held = await this.redis.get(slot);
    // Let go between the two calls (the first request ended unbilled): this one may take it now.
    if (held === null) return this.claim(account, key, email);
    if (held === PENDING) return { kind: 'in_progress' };
    const kept = JSON.parse(held) as { email: string; answer: Record<string, unknown> };
    return kept.email === email ? { kind: 'replay', answer: kept.answer } : { kind: 'other_address' };
  }

  /** Keeps a billed answer under its key. */
  async keep(account: string, key: string, email: string, answer: Record<string, unknown>): Promise<void> {
    await this.redis.set(this.slot(account, key), JSON.stringify({ email, answer }), 'EX', this.ttlSeconds);
  }

  /** Lets go of a key whose request ended without a billed answer, so asking again verifies afresh. */
  async release(account: string, key: string): Promise<void> {
    await this.redis.del(this.slot(account, key));
  }
}
