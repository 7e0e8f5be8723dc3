import { createHash, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { CredentialBinding } from './credential-binding';

export const SESSION_COOKIE = 'vh_session';
export const SESSION_TTL_SECONDS = 12 * 60 * 60;
/** The header the dashboard sends on every unsafe request; a cross-site form or image cannot set it. */
export const CSRF_HEADER = 'X-VerifyHub-CSRF';

/**
 * Dashboard sessions: a random 32-byte id in an HttpOnly cookie, and in Redis only its SHA-256 (a
 * leaked Redis dump holds no usable session) with a 12-hour TTL. The value is the credential binding
 * the session was signed in under (credential-binding.ts): a new HUB_ADMIN_TOKEN or a revocation ends
 * it. Nothing else is stored: a session is "signed in with the admin token", which has no user or roles.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly binding: CredentialBinding,
    readonly ttlSeconds = SESSION_TTL_SECONDS,
  ) {}

  private key(id: string): string {
    return `${this.prefix}session:${createHash('sha256').update(id, 'utf8').digest('hex')}`;
  }

  async create(): Promise<string> {
    const binding = await this.binding.current();
    if (!binding) throw new Error('a session needs HUB_ADMIN_TOKEN');
    const id = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(id), binding, 'EX', this.ttlSeconds);
    return id;
  }

  async isValid(id: string | undefined): Promise<boolean> {
    if (!id || id.length > 200) return false;
    const [issuedUnder, current] = await Promise.all([this.redis.get(this.key(id)), this.binding.current()]);
    if (issuedUnder === null) return false;
    if (CredentialBinding.holds(issuedUnder, current)) return true;
    await this.redis.del(this.key(id));
    return false;
  }

  async remove(id: string | undefined): Promise<void> {
    if (id && id.length <= 200) await this.redis.del(this.key(id));
  }
}

/** The session id a request's Cookie header carries, if any. */
export function sessionIdOf(req: Request): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  return parseCookies(header)[SESSION_COOKIE] || undefined;
}

/**
 * Always `Secure`: browsers keep Secure cookies over https and on http://localhost / 127.0.0.1
 * (Chromium and Firefox treat those as secure contexts), so serve the dashboard over https elsewhere.
 */
export function setSessionCookie(res: Response, id: string, maxAgeSeconds: number): void {
  res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, id, { path: '/', httpOnly: true, secure: true, sameSite: 'strict', maxAge: maxAgeSeconds }));
}

export function clearSessionCookie(res: Response): void {
  res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, '', { path: '/', httpOnly: true, secure: true, sameSite: 'strict', maxAge: 0, expires: new Date(0) }));
}
