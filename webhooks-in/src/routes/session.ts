import express, { Router } from 'express';
import { z } from 'zod';
import { safeEqual } from '../auth';
import { sendError } from '../http-errors';
import { parseInput } from '../validate';
import { clearSessionCookie, sessionIdOf, setSessionCookie, type SessionStore, type SignInLimiter } from '../session';

const SignInBody = z.strictObject({ token: z.string().min(1, 'is required').max(1000) });

export interface SessionRoutesOptions {
  adminToken?: string;
  sessions: SessionStore;
  limiter: SignInLimiter;
}

/**
 * The dashboard's sign-in (mounted under /api before the token guard): the admin token, sent once in
 * a JSON body, becomes an HttpOnly session cookie. The token is never stored, logged or echoed.
 */
export function sessionRoutes(options: SessionRoutesOptions): Router {
  const router = Router();

  router.post('/session', express.json({ limit: '4kb' }), async (req, res) => {
    if (!options.adminToken) return sendError(res, 503, 'ADMIN_DISABLED', 'the admin API is disabled: set HUB_ADMIN_TOKEN');
    const address = req.ip ?? 'unknown';
    const wait = await options.limiter.retryAfter(address);
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return sendError(res, 429, 'TOO_MANY_ATTEMPTS', `too many failed sign-ins: try again in ${wait} s`);
    }
    const { token } = parseInput(SignInBody, req.body ?? {}, 'body');
    if (!safeEqual(token, options.adminToken)) {
      await options.limiter.recordFailure(address);
      return sendError(res, 401, 'UNAUTHORIZED', 'wrong admin token');
    }
    await options.limiter.reset(address);
    const id = await options.sessions.create();
    setSessionCookie(res, id, options.sessions.ttlSeconds);
    res.status(204).end();
  });

  router.get('/session', async (req, res) => {
    if (await options.sessions.isValid(sessionIdOf(req))) return void res.json({ signedIn: true });
    sendError(res, 401, 'UNAUTHORIZED', 'not signed in');
  });

  router.delete('/session', async (req, res) => {
    await options.sessions.remove(sessionIdOf(req));
    clearSessionCookie(res);
    res.status(204).end();
  });

  return router;
}
