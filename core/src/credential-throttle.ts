import { randomUUID } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from './logger';
import { runScript, type ScriptRunner } from './redis-script';

/**
 * Failed credential checks allowed before a lock-out. Two counts, both in Redis so every process of a
 * service counts together:
 * - per client address, every credential together: `perAddress` failures in `windowSeconds`, then the
 *   address is locked out for `lockoutSeconds` (every check from it refused, the right credential too);
 * - per credential, every address together: `perCredential` failures in `windowSeconds` put the credential
 *   under lock-out for `lockoutSeconds`, during which an address that failed on it in that time is refused.
 *   An address with no failure is still checked, so an attack spread over many addresses slows itself
 *   down without locking the rightful holder out.
 */
export interface CredentialThrottleLimits {
  perAddress: number;
  perCredential: number;
  windowSeconds: number;
  lockoutSeconds: number;
  /** How long a check waits for its address's checks under way to finish before it is refused as `busy`. */
  busyAfterMs: number;
  /** A check whose process has not renewed it for this long is no longer counted as under way (its process died or stopped). */
  abandonedAfterMs: number;
}

/** 10 failures a minute per address, 100 a minute per credential; a lock-out lasts 15 minutes; busy after 5 s; a check is abandoned after 30 s. */
export const CREDENTIAL_THROTTLE_DEFAULTS: CredentialThrottleLimits = { perAddress: 10, perCredential: 100, windowSeconds: 60, lockoutSeconds: 15 * 60, busyAfterMs: 5_000, abandonedAfterMs: 30_000 };

/**
 * The key an address is counted under: an IPv6 client controls at least a /64, so that is one address;
 * an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address.slice(0, 64);
  const [head = '', tail = ''] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** One credential check under way: report how it ended. */
export interface CredentialAttempt {
  allowed: true;
  /** The credential was right (or not a guess, such as a revoked key): the attempt is not counted. */
  succeeded(): Promise<void>;
  /** A wrong credential: counted for the address (already) and the credential, and logged without the value tried. */
  failed(): Promise<void>;
}

/**
 * Why a check was refused: `locked-out` after too many wrong credentials (`lockedOut` says whose), or
 * `busy`: the address had as many checks under way as its limit for longer than `busyAfterMs` (a burst
 * of right credentials, say). Busy is no lock-out and counts nothing: the caller is to try again soon.
 */
export type ThrottleRefusal = { allowed: false; retryAfterSeconds: number } & ({ refused: 'locked-out'; lockedOut: 'address' | 'credential' } | { refused: 'busy' });

/**
 * The one throttle in front of every credential check of a service (the hub's admin token, sign-in and
 * MCP tokens; the engine's API keys), built on rate-limiter-flexible over the service's Redis. Each check
 * is counted as under way for its address before anything is compared, and an address's failures and
 * checks under way together stay within its limit (a burst of parallel guesses gets no more than the
 * limit compared); only a wrong credential counts as a failure.
 * A failure is logged with the credential's name, where it was presented and the address, never the
 * value that was tried.
 */
export class CredentialThrottle {
  readonly limits: CredentialThrottleLimits;
  private readonly byAddress: RateLimiterRedis;
  private readonly byCredential: RateLimiterRedis;
  private readonly failedOn: RateLimiterRedis;
  private readonly underWay: UnderWayStore;
  private readonly prefix: string;

  /** `redis` is the service's ioredis client (core names no Redis client, so it is not typed here). */
  constructor(redis: object, prefix: string, limits: Partial<CredentialThrottleLimits> = {}, private readonly logger?: Logger) {
    this.limits = { ...CREDENTIAL_THROTTLE_DEFAULTS, ...limits };
    this.prefix = prefix;
    this.underWay = redis as UnderWayStore;
    // Loaded here, not with core: everything that imports core (every connector, the CLI) would pay for it.
    const { RateLimiterRedis } = require('rate-limiter-flexible') as typeof RateLimiterFlexible;
    const { perAddress, perCredential, windowSeconds, lockoutSeconds } = this.limits;
    this.byAddress = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}auth-failures:address`, points: perAddress, duration: windowSeconds });
    this.byCredential = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}auth-failures:credential`, points: perCredential, duration: windowSeconds });
    // Which addresses failed on a credential lately: they are the ones a credential lock-out holds back.
    this.failedOn = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}auth-failures:pair`, points: 1_000_000, duration: lockoutSeconds });
  }

  /**
   * Counts one more check from `from` as under way and answers how many are. Each check is its own member
   * of a sorted set, scored by when it is abandoned (Redis's clock), so the count is of checks that really
   * are under way: it never goes below zero and no window ends in the middle of a burst (a count with
   * a fixed 30 s window let a burst outlasting it have 122 of 200 guesses compared).
   */
  private async markUnderWay(from: string, check: string): Promise<number> {
    const count = await runScript(this.underWay, MARK_UNDER_WAY, 1, this.underWayKey(from), this.limits.abandonedAfterMs, check);
    return Number(count);
  }

  /**
   * Keeps an admitted check counted while its process lives, however long it takes: only a check whose
   * process died (or stopped) is abandoned. A check that stopped counting after `abandonedAfterMs` while
   * still being compared let a starved hub (a burst of 200 guesses on a loaded machine) compare 19. A
   * check never reported (a caller's bug) stops being renewed after MAX_RENEWED_MS. Stopped before the
   * check's end is sent, on the same connection, so no renewal lands after it.
   */
  private renewWhileUnderWay(from: string, check: string): () => void {
    const until = Date.now() + MAX_RENEWED_MS;
    const timer = setInterval(() => {
      if (Date.now() > until) clearInterval(timer);
      else this.markUnderWay(from, check).catch(() => undefined); // a failed renewal: the check is abandoned in time, as a dead one
    }, Math.max(10, Math.floor(this.limits.abandonedAfterMs / 3)));
    timer.unref();
    return () => clearInterval(timer);
  }

  private async endCheck(from: string, check: string): Promise<void> {
    await this.underWay.zrem(this.underWayKey(from), check);
  }

  private underWayKey(from: string): string {
    return `${this.prefix}auth-checks:under-way:${from}`;
  }

  /**
   * Asks to check `credential` (a name such as `admin-token`, never its value) presented from `address`
   * by way of `via` (a route or scheme, for the log). Refused while the address or the credential is
   * locked out; otherwise the caller checks and reports with `succeeded` or `failed`.
   *
   * Failures and checks under way together never exceed the address's limit, so a burst of parallel
   * guesses gets no more than the limit compared; a burst of right credentials (a client verifying 25
   * addresses at once) only waits its turn for a few milliseconds, and is never locked out by itself.
   */
  async attempt(address: string | undefined, credential: string, via: string): Promise<CredentialAttempt | ThrottleRefusal> {
    const from = clientAddressKey(address);
    const pair = `${credential}|${from}`;
    const { perAddress, perCredential, lockoutSeconds } = this.limits;
    const giveUpAt = Date.now() + this.limits.busyAfterMs;
    const check = randomUUID();
    let step = QUEUE_STEP_MS;
    for (;;) {
      // Counted as under way first, the failures read after: a check that fails records its failure before
      // it stops being under way, so every check compared is seen in one count or the other.
      const underWay = await this.markUnderWay(from, check);
      const [byAddress, byCredential, failedOn] = await Promise.all([this.byAddress.get(from), this.byCredential.get(credential), this.failedOn.get(pair)]);
      const failures = byAddress?.consumedPoints ?? 0;
      const credentialLocked = !!byCredential && byCredential.consumedPoints > perCredential && (failedOn?.consumedPoints ?? 0) > 0;
      if (failures + underWay <= perAddress && !credentialLocked) break;
      await this.endCheck(from, check);
      if (failures > perAddress) return refusal(byAddress!, 'address');
      if (failures === perAddress) {
        // The attempt after the limit starts the lock-out.
        await this.byAddress.block(from, lockoutSeconds);
        this.logger?.warn({ credential, via, address: from, failures: perAddress, lockoutSeconds }, 'credential checks from this address locked out');
        return { allowed: false, retryAfterSeconds: lockoutSeconds, refused: 'locked-out', lockedOut: 'address' };
      }
      if (credentialLocked) return refusal(byCredential!, 'credential');
      if (Date.now() >= giveUpAt) return { allowed: false, retryAfterSeconds: 1, refused: 'busy' };
      // Waiting checks look again less and less often: 190 guesses looking every 10 ms were most of the
      // load that made the compared ones slow.
      await sleep(step);
      step = Math.min(step * 2, QUEUE_STEP_MAX_MS);
    }
    const stopRenewing = this.renewWhileUnderWay(from, check);
    return {
      allowed: true,
      succeeded: async () => {
        stopRenewing();
        await this.endCheck(from, check);
      },
      failed: async () => {
        const [byAddress, onCredential] = await Promise.all([this.byAddress.penalty(from, 1), this.byCredential.penalty(credential, 1), this.failedOn.penalty(pair, 1)]);
        stopRenewing();
        await this.endCheck(from, check);
        const fields = { credential, via, address: from, failuresFromAddress: byAddress.consumedPoints, failuresOnCredential: onCredential.consumedPoints };
        if (onCredential.consumedPoints === perCredential) {
          await this.byCredential.block(credential, lockoutSeconds);
          this.logger?.warn({ ...fields, lockoutSeconds }, 'credential check failed: the credential is locked out for addresses that failed on it');
        } else this.logger?.warn(fields, 'credential check failed');
      },
    };
  }
}

const QUEUE_STEP_MS = 10;
const QUEUE_STEP_MAX_MS = 250;
/** How long a check that is never reported is kept under way by its live process. */
const MAX_RENEWED_MS = 10 * 60_000;

/** The two commands the count of checks under way needs; ioredis's Redis and Cluster have both. */
interface UnderWayStore extends ScriptRunner {
  zrem(key: string, member: string): Promise<unknown>;
}

/**
 * KEYS[1] the address's checks under way; ARGV[1] ms until a check is abandoned, ARGV[2] this check.
 * Drops the abandoned ones, adds (or renews) this one, and answers how many are under way.
 */
const MARK_UNDER_WAY = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return redis.call('ZCARD', KEYS[1])
`;

const refusal = (state: RateLimiterRes, lockedOut: 'address' | 'credential'): ThrottleRefusal => ({ allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(state.msBeforeNext / 1000)), refused: 'locked-out', lockedOut });

/** A refusal in words for whoever presented the credential: a lock-out says so; busy says to try again (nothing was counted). */
export function throttleRefusalMessage(refusal: ThrottleRefusal): string {
  if (refusal.refused === 'busy') return `busy: too many credential checks from this address under way at once; try again in ${refusal.retryAfterSeconds} s`;
  return `too many failed credential checks from this address: try again in ${refusal.retryAfterSeconds} s`;
}
