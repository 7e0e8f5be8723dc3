import express, { Router } from 'express';
import type { ActionReceiver } from '../deps';
import { HttpError } from '../http-errors';
import { WEBHOOK_BODY_LIMIT, rawRequest } from './webhooks';

export interface ActionRoutesOptions {
  receivers: Record<string, ActionReceiver>;
  publicUrl?: string;
}

/**
 * POST /actions/:platform: a platform's workflow action calling the hub. The receiver checks the
 * signature on the raw bytes and the full URL (as for webhooks) and answers in the platform's shape;
 * its rejections go through the hub's error handler (401 bad signature, 400 naming the field).
 */
export function actionRoutes(options: ActionRoutesOptions): Router {
  const router = Router();
  const rawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  router.post('/:platform', rawBody, async (req, res) => {
    const platform = String(req.params.platform);
    const receiver = Object.hasOwn(options.receivers, platform) ? options.receivers[platform] : undefined;
    if (!receiver) throw new HttpError(404, 'NOT_FOUND', 'no workflow action receiver is configured for this platform here');
    res.status(200).json(await receiver.answer(rawRequest(req, options.publicUrl), Date.now()));
  });
  return router;
}
