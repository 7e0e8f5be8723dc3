import express, { Router } from 'express';
import { z } from 'zod';
import type { CredentialThrottle } from '@verify-hub/core';
import { checkAdminToken, sendThrottleRefusal } from '../auth';
import { sendError } from '../http-errors';
import { parseInput } from '../validate';
import type { CredentialBinding } from '../credential-binding';
import { clearSessionCookie, sessionIdOf, setSessionCookie, type SessionStore } from '../session';

const SignInBody = z.strictObject({ token: z.string().min(1, 'is required').max(1000) });
const RevokeBody = z.strictObject({ all: z.literal(true, { error: 'must be true: every session and MCP token is revoked at once' }) });

export interface SessionRoutesOptions {
  adminToken?: string;
  sessions: SessionStore;
  throttle: CredentialThrottle;
}

/**
 * The dashboard's sign-in (mounted under /api before the token guard): the admin token, sent once in
 * a JSON body, becomes an HttpOnly session cookie. The token is never stored, logged or echoed.
 */
export function sessionRoutes(options: SessionRoutesOptions): Router {
  const router = Router();

  router.post('/session', express.json({ limit: '4kb' }), async (req, res) => {
    if (!options.adminToken) return sendError(res, 503, 'ADMIN_DISABLED', 'the admin API is disabled: set HUB_ADMIN_TOKEN');
    const { token } = parseInput(SignInBody, req.body ?? {}, 'body');
    const check = await checkAdminToken(options.throttle, req, token, options.adminToken, 'dashboard sign-in');
    if (check.outcome === 'refused') return sendThrottleRefusal(res, check.refusal);
    if (check.outcome === 'wrong') return sendError(res, 401, 'UNAUTHORIZED', 'wrong admin token');
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

/**
 * `POST /api/sessions/revoke {"all": true}` (behind the admin guard): what `verify-hub sessions revoke --all`
 * does, from the dashboard. Every dashboard session (the caller's too) and every MCP code, access and
 * refresh token ends at once, on every hub process; the admin token itself stays valid.
 */
export function sessionRevocationRoutes(binding: CredentialBinding): Router {
  const router = Router();
  router.post('/sessions/revoke', async (req, res) => {
    parseInput(RevokeBody, req.body ?? {}, 'body');
    await binding.revokeAll();
    clearSessionCookie(res);
    res.json({ revoked: 'all' });
  });
  return router;
}
