import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { throttleRefusalMessage, type CredentialThrottle, type ThrottleRefusal } from '@verify-hub/core';
import { sendError } from './http-errors';
import { CSRF_HEADER, sessionIdOf, type SessionStore } from './session';

/** Constant-time string comparison: both sides are hashed first so their lengths leak nothing either. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * The token an Authorization header presents: `Bearer <token>`, or, for browsers, Basic with the token as
 * password. Null when the header is there but carries no token this route takes (another scheme, or
 * malformed): the header still wins over a cookie then (see requireAdminToken).
 */
function presentedToken(header: string, allowBasic: boolean): string | null {
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (!scheme || !value) return null;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (allowBasic && scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? null : decoded.slice(colon + 1);
  }
  return null;
}

/** The credential name the throttle counts guesses of HUB_ADMIN_TOKEN under, wherever they are presented. */
export const ADMIN_TOKEN_CREDENTIAL = 'admin-token';

/**
 * The answer while the throttle holds an address (or a credential for it) back: 429 TOO_MANY_ATTEMPTS
 * for a lock-out; 503 BUSY when the address's checks under way stayed at its limit (try again soon:
 * nothing was counted). Both with Retry-After.
 */
export function sendThrottleRefusal(res: Response, refusal: ThrottleRefusal): void {
  res.set('Retry-After', String(refusal.retryAfterSeconds));
  if (refusal.refused === 'busy') return sendError(res, 503, 'BUSY', throttleRefusalMessage(refusal));
  sendError(res, 429, 'TOO_MANY_ATTEMPTS', throttleRefusalMessage(refusal));
}

export type AdminTokenCheck = { outcome: 'ok' } | { outcome: 'wrong' } | { outcome: 'refused'; refusal: ThrottleRefusal };

/**
 * Checks a presented admin token under the throttle: 'ok', 'wrong' (counted, and logged without the
 * value), or 'refused' while the address is locked out or busy. Every route that compares HUB_ADMIN_TOKEN goes
 * through here; `via` names the route in the log.
 */
export async function checkAdminToken(throttle: CredentialThrottle, req: Request, given: string, adminToken: string, via: string): Promise<AdminTokenCheck> {
  const attempt = await throttle.attempt(req.ip, ADMIN_TOKEN_CREDENTIAL, via);
  if (!attempt.allowed) return { outcome: 'refused', refusal: attempt };
  if (safeEqual(given, adminToken)) {
    await attempt.succeeded();
    return { outcome: 'ok' };
  }
  await attempt.failed();
  return { outcome: 'wrong' };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a cookie-authenticated request may change something. The cookie is SameSite=Strict already;
 * the header is the second lock (a cross-site page cannot add a custom header without a CORS
 * preflight, which the hub never grants). The queue UI's own requests cannot add it, so there a
 * browser's `Sec-Fetch-Site: same-origin` (which pages cannot forge) counts too.
 */
function csrfSafe(req: Request, browser: boolean): boolean {
  if (SAFE_METHODS.has(req.method)) return true;
  if (req.get(CSRF_HEADER) === '1') return true;
  return browser && req.get('sec-fetch-site') === 'same-origin';
}

export interface AdminAuthOptions {
  /** Every token comparison goes through it (counted per address and per credential, in Redis). */
  throttle: CredentialThrottle;
  /** The queue UI: HTTP Basic with the token as password too, so a browser can prompt for it. */
  browser?: boolean;
  /** Dashboard sessions: a valid `vh_session` cookie is accepted instead of the token. */
  sessions?: SessionStore;
}

/**
 * Guards the admin API and the queue UI: `Authorization: Bearer <token>`, or a dashboard session
 * cookie (unsafe methods then also need `X-VerifyHub-CSRF: 1`). Without a configured token the admin
 * surface is closed, never open.
 *
 * A presented Authorization header wins over a cookie, whatever its scheme: a header this route cannot
 * use (`Token x`, Basic on the API, a malformed one) is refused with 401, never passed over for the
 * cookie. A request that says who it is gets exactly that identity; falling back to the browser's
 * ambient session would let a request meant for another identity (a proxy's or a script's credential)
 * act as the signed-in admin, and would make the same script behave differently with a cookie jar.
 * Session cookies are not counted by the throttle: a 256-bit id cannot be guessed, and counting would
 * lock out every open dashboard whose session a revocation just ended.
 */
export function requireAdminToken(adminToken: string | undefined, options: AdminAuthOptions): RequestHandler {
  const browser = options.browser === true;
  const via = browser ? 'queue UI' : 'admin API';
  const refuse = (res: Parameters<RequestHandler>[1], message: string) => {
    res.set('WWW-Authenticate', browser ? 'Basic realm="verify-hub", charset="UTF-8"' : 'Bearer realm="verify-hub"');
    sendError(res, 401, 'UNAUTHORIZED', message);
  };
  return async (req, res, next) => {
    if (!adminToken) return sendError(res, 503, 'ADMIN_DISABLED', 'the admin API is disabled: set HUB_ADMIN_TOKEN');
    const header = req.get('authorization');
    if (header !== undefined) {
      const token = presentedToken(header, browser);
      if (token === null) return refuse(res, `unusable Authorization header: send "Authorization: Bearer <HUB_ADMIN_TOKEN>"${browser ? ' or Basic with the token as password' : ''} (a header wins over the session cookie)`);
      try {
        const check = await checkAdminToken(options.throttle, req, token, adminToken, via);
        if (check.outcome === 'ok') return next();
        if (check.outcome === 'wrong') return refuse(res, 'invalid token');
        return sendThrottleRefusal(res, check.refusal);
      } catch (error) {
        return next(error);
      }
    }
    const sessionId = options.sessions ? sessionIdOf(req) : undefined;
    if (sessionId === undefined) return refuse(res, 'missing bearer token');
    try {
      if (!(await options.sessions!.isValid(sessionId))) return refuse(res, 'session expired or signed out: sign in again');
    } catch (error) {
      return next(error);
    }
    if (!csrfSafe(req, browser)) return sendError(res, 403, 'CSRF', `a signed-in browser request that changes something must carry the header ${CSRF_HEADER}: 1`);
    next();
  };
}
