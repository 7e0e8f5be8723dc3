import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { sendError } from './http-errors';
import { CSRF_HEADER, sessionIdOf, type SessionStore } from './session';

/** Constant-time string comparison: both sides are hashed first so their lengths leak nothing either. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The token a request presents: `Authorization: Bearer <token>`, or, for browsers, Basic with the token as password. */
function presentedToken(header: string | undefined, allowBasic: boolean): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (allowBasic && scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : decoded.slice(colon + 1);
  }
  return undefined;
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
  /** The queue UI: HTTP Basic with the token as password too, so a browser can prompt for it. */
  browser?: boolean;
  /** Dashboard sessions: a valid `vh_session` cookie is accepted instead of the token. */
  sessions?: SessionStore;
}

/**
 * Guards the admin API and the queue UI: `Authorization: Bearer <token>`, or a dashboard session
 * cookie (unsafe methods then also need `X-VerifyHub-CSRF: 1`). A presented Authorization header
 * wins over a cookie. Without a configured token the admin surface is closed, never open.
 */
export function requireAdminToken(adminToken: string | undefined, options: AdminAuthOptions = {}): RequestHandler {
  const browser = options.browser === true;
  const refuse = (res: Parameters<RequestHandler>[1], message: string) => {
    res.set('WWW-Authenticate', browser ? 'Basic realm="verify-hub", charset="UTF-8"' : 'Bearer realm="verify-hub"');
    sendError(res, 401, 'UNAUTHORIZED', message);
  };
  return async (req, res, next) => {
    if (!adminToken) return sendError(res, 503, 'ADMIN_DISABLED', 'the admin API is disabled: set HUB_ADMIN_TOKEN');
    const token = presentedToken(req.get('authorization'), browser);
    if (token !== undefined) return safeEqual(token, adminToken) ? next() : refuse(res, 'invalid token');
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
