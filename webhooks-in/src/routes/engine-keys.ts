import { Router } from 'express';
import { z } from 'zod';
import { KEY_NAME_PATTERN, KEY_NAME_RULE } from '@verify-hub/core';
import type { EngineKeyAdmin, EngineKeysSetting } from '../engine-keys';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';

const CreateKeyBody = z.strictObject({
  name: z.string({ error: 'is required: what the key is for, e.g. "Website sign-up form"' }).trim().regex(KEY_NAME_PATTERN, KEY_NAME_RULE),
});
const KeyIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, 'must be a key id') });

/**
 * The engine's API keys and this month's usage (under /api): list, create (the full key in that answer
 * only), revoke, usage. Without a key admin: 503 `ENGINE_KEYS_ELSEWHERE` saying where keys are managed.
 */
export function engineKeyRoutes(setting: EngineKeysSetting | undefined): Router {
  const router = Router();
  const admin = (): EngineKeyAdmin => {
    if (setting && 'admin' in setting) return setting.admin;
    throw new HttpError(503, 'ENGINE_KEYS_ELSEWHERE', setting?.elsewhere ?? 'this hub does not manage engine keys');
  };
  // No cache anywhere: the create answer holds a secret, and the list and usage change at each request.
  router.use('/engine', (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });

  router.get('/engine/keys', async (_req, res) => {
    res.json({ keys: await admin().list() });
  });

  router.post('/engine/keys', async (req, res) => {
    const { name } = parseInput(CreateKeyBody, req.body ?? {}, 'body');
    res.status(201).json(await admin().create(name));
  });

  router.delete('/engine/keys/:id', async (req, res) => {
    const { id } = parseInput(KeyIdParams, req.params, 'params');
    const revoked = await admin().revoke(id);
    if (!revoked) throw new HttpError(404, 'NOT_FOUND', `no key with id ${id}`);
    res.json(revoked);
  });

  router.get('/engine/usage', async (_req, res) => {
    res.json(await admin().usage());
  });

  return router;
}
