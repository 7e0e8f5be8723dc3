import { Router } from 'express';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { HookIdParams, RegisterHookBody } from '../schemas';
import type { HookStore } from '../completion-hooks';
import type { OutboundGuard } from '../outbound-guard';

/**
 * Completion-webhook registration (REST-hook style, as Zapier's and n8n's triggers subscribe):
 * POST /api/hooks returns the id and the signing secret (shown once); DELETE unsubscribes. A URL
 * aimed outside the public internet is refused (400 `body.url`), unless HUB_OUTBOUND_ALLOW lists it.
 */
export function hookRoutes(store: HookStore, outbound: OutboundGuard): Router {
  const router = Router();

  router.post('/hooks', async (req, res) => {
    const body = parseInput(RegisterHookBody, req.body ?? {}, 'body');
    await outbound.check(body.url, 'body.url');
    const hook = await store.add(body);
    res.status(201).location(`/api/hooks/${hook.id}`).json(hook);
  });

  router.get('/hooks', async (_req, res) => {
    res.json({ hooks: await store.list() });
  });

  router.delete('/hooks/:id', async (req, res) => {
    const { id } = parseInput(HookIdParams, req.params, 'params');
    if (!(await store.remove(id))) throw new HttpError(404, 'NOT_FOUND', `hook ${id} not found`);
    res.status(204).end();
  });

  return router;
}
