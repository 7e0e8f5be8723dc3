import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export const OAUTH_STATE_TTL_SECONDS = 10 * 60;

/** What a sign-in started with, kept until its callback. */
export interface OAuthStart {
  platform: string;
  /** The exact redirect URI sent to the platform: the token exchange must repeat it. */
  redirectUri: string;
  /** The platform's `choice` key fields picked before signing in (`PlatformSetup.oauth.exchange`). */
  choices?: Record<string, string>;
}

/**
 * OAuth `state` values: random, kept in Redis (by their hash) for 10 minutes, usable once. The callback
 * is reached by the platform's redirect (no session cookie comes with a cross-site redirect under
 * SameSite=Strict), so the state is what ties it to a signed-in start.
 */
export class OAuthStates {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(state: string): string {
    return `${this.prefix}oauth-state:${createHash('sha256').update(state, 'utf8').digest('hex')}`;
  }

  async create(start: OAuthStart): Promise<string> {
    const state = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(state), JSON.stringify(start), 'EX', OAUTH_STATE_TTL_SECONDS);
    return state;
  }

  /** The start of `state`, removed in the same step (a replayed callback finds nothing). */
  async take(state: string | undefined): Promise<OAuthStart | undefined> {
    if (!state || state.length > 200) return undefined;
    const raw = await this.redis.getdel(this.key(state));
    return raw ? (JSON.parse(raw) as OAuthStart) : undefined;
  }
}
