import express, { Router, type Request } from 'express';
import type { ActionReceiver, RawWebhookRequest } from '@verify-hub/core';
import { HttpError } from '../http-errors';
import { WEBHOOK_BODY_LIMIT, rawRequest } from './webhooks';

export interface ActionRoutesOptions {
  receivers: Record<string, ActionReceiver>;
  publicUrl?: string;
}

/**
 * A platform calling the hub with a signed request (a workflow action, a record card): the raw bytes
 * and full URL go to the platform's receiver, which checks the signature and answers in the
 * platform's shape; its rejections go through the hub's error handler (401 bad signature, 400 naming
 * the field). A platform with no receiver here answers 404.
 */
export function signedCallRouter<R>(options: { path: string; receivers: Record<string, R>; what: string; publicUrl?: string; answer: (receiver: R, request: RawWebhookRequest, req: Request) => Promise<unknown> }): Router {
  const router = Router();
  const rawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  router.post(options.path, rawBody, async (req, res) => {
    const platform = String(req.params.platform);
    const receiver = Object.hasOwn(options.receivers, platform) ? options.receivers[platform] : undefined;
    if (!receiver) throw new HttpError(404, 'NOT_FOUND', `no ${options.what} receiver is configured for this platform here`);
    res.status(200).json(await options.answer(receiver, rawRequest(req, options.publicUrl), req));
  });
  return router;
}

/** POST /actions/:platform: a platform's workflow action calling the hub. */
export function actionRoutes(options: ActionRoutesOptions): Router {
  return signedCallRouter({ path: '/:platform', receivers: options.receivers, what: 'workflow action', publicUrl: options.publicUrl, answer: (receiver, request) => receiver.answer(request, Date.now()) });
}
