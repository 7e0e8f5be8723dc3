import { createHmac, randomBytes, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { safeEqual } from './auth';

const scryptAsync = promisify(scrypt) as (password: string, salt: string, keylen: number, options: { N: number }) => Promise<Buffer>;

/**
 * What every sign-in the hub hands out (dashboard sessions, MCP codes, access and refresh tokens) is bound
 * to: an HMAC, keyed with a key derived from HUB_ADMIN_TOKEN, over a revocation generation kept in Redis.
 * Each record stores the binding it was issued under and is honoured only while that is still the
 * current one. So `revokeAll` (`verify-hub sessions revoke --all`, the dashboard's button: one INCR, seen
 * by every hub process at its next check) ends them all without a restart or a scan of Redis, and so
 * does a new HUB_ADMIN_TOKEN: the bindings change with the key, and a hub that starts with a token other
 * than the last one seen moves the generation on too, so going back to an old token revives nothing.
 *
 * The key is scrypt(token, a random salt kept in Redis): the bindings stored in Redis then cost an offline
 * guesser of a weak admin token a memory-hard hash per guess, never a quick HMAC.
 */
export class CredentialBinding {
  private key?: Promise<Buffer>;
  private readonly cached = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly adminToken: string | undefined,
  ) {}

  /** The binding new sign-ins get now; undefined without an admin token (nothing can be signed in then). */
  async current(): Promise<string | undefined> {
    if (!this.adminToken) return undefined;
    // The key first: deriving it may move the generation on (a new admin token).
    const key = await (this.key ??= this.deriveKey(this.adminToken));
    const at = (await this.redis.get(this.keyName('generation'))) ?? '0';
    let binding = this.cached.get(at);
    if (!binding) {
      binding = createHmac('sha256', key).update(`sign-in binding, generation ${at}`).digest('base64url');
      this.cached.clear();
      this.cached.set(at, binding);
    }
    return binding;
  }

  /** Whether a record issued under `issuedUnder` is still honoured, `current` being what `current()` answered. */
  static holds(issuedUnder: unknown, current: string | undefined): boolean {
    return current !== undefined && typeof issuedUnder === 'string' && safeEqual(issuedUnder, current);
  }

  revokeAll(): Promise<number> {
    return revokeAllSignIns(this.redis, this.prefix);
  }

  private keyName(name: 'generation' | 'salt' | 'fingerprint'): string {
    return `${this.prefix}auth:${name}`;
  }

  private async deriveKey(adminToken: string): Promise<Buffer> {
    try {
      await this.redis.set(this.keyName('salt'), randomBytes(16).toString('base64url'), 'NX');
      const salt = (await this.redis.get(this.keyName('salt')))!;
      const key = await scryptAsync(adminToken, salt, 32, { N: 2 ** 14 });
      const fingerprint = createHmac('sha256', key).update('admin token fingerprint').digest('base64url');
      const previous = await this.redis.getset(this.keyName('fingerprint'), fingerprint);
      if (previous !== null && previous !== fingerprint) await this.redis.incr(this.keyName('generation'));
      return key;
    } catch (error) {
      this.key = undefined; // Redis trouble: the next check derives it again.
      throw error;
    }
  }
}

/**
 * Ends every dashboard session and MCP token of the hub whose keys start with `prefix` (the hub's
 * `keyPrefix`, `<VERIFY_HUB_REDIS_PREFIX>:hub:` under `verify-hub serve`). Returns the new generation.
 */
export function revokeAllSignIns(redis: Redis, prefix: string): Promise<number> {
  return redis.incr(`${prefix}auth:generation`);
}
