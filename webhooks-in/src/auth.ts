import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './http-errors';

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

/**
 * Guards the admin API (and the queue UI, where `browser` also accepts HTTP Basic so a browser can
 * prompt for the token). Without a configured token the admin surface is closed, never open.
 */
export function requireAdminToken(adminToken: string | undefined, options: { browser?: boolean } = {}): RequestHandler {
  return (req, res, next) => {
    if (!adminToken) return sendError(res, 503, 'ADMIN_DISABLED', 'the admin API is disabled: set HUB_ADMIN_TOKEN');
    const token = presentedToken(req.get('authorization'), options.browser === true);
    if (token !== undefined && safeEqual(token, adminToken)) return next();
    if (options.browser) res.set('WWW-Authenticate', 'Basic realm="verify-hub", charset="UTF-8"');
    else res.set('WWW-Authenticate', 'Bearer realm="verify-hub"');
    sendError(res, 401, 'UNAUTHORIZED', token === undefined ? 'missing bearer token' : 'invalid token');
  };
}
