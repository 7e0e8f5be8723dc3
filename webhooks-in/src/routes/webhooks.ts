import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { WebhookRejectedError, type ContactEvent, type Logger, type PlatformWebhook, type RawWebhookRequest, type ReceiverRoute } from '@verify-hub/core';
import type { WebhookIngest } from '../webhook-ingest';
import type { HubMetrics } from '../http-metrics';
import { HttpError, sendError } from '../http-errors';
import { parseInput } from '../validate';

const ConnectionParams = z.object({ connection: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a connection id') });

/** Platforms cap their payloads well below this (HubSpot: 100 events); anything larger is refused with 413. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

const DEFAULT_PATHS: NonNullable<PlatformWebhook['paths']> = [{ path: '', methods: ['POST'] }];

export interface WebhookRoutesOptions {
  /** By platform id: each is mounted at /webhooks/<id><path> for its paths. */
  receivers: Record<string, PlatformWebhook>;
  ingest: WebhookIngest;
  metrics: HubMetrics;
  logger: Logger;
  publicUrl?: string;
}

/** The request as the platform sent it, for the pure parser: full URL (signatures cover it) and raw bytes. */
export function rawRequest(req: Request, publicUrl: string | undefined): RawWebhookRequest {
  const base = publicUrl ? publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return { method: req.method, url: `${base}${req.originalUrl}`, headers, body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) };
}

/**
 * The platform receivers. Each delivery is checked by the platform's parser (signature, age, shape),
 * its events are stored in one Redis write (then handed to the pipeline, which drops repeats), and the answer goes back at once: no verification here.
 */
export function webhookRoutes(options: WebhookRoutesOptions): Router {
  const router = Router();
  const rawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });

  const receive = (platform: string) => async (req: Request, res: express.Response) => {
    const receiver = Object.hasOwn(options.receivers, platform) ? options.receivers[platform]!.receiver : undefined;
    if (!receiver) throw new HttpError(404, 'NOT_FOUND', `no ${platform} webhook receiver is configured here`);
    const route: ReceiverRoute = {};
    if (req.params.connection !== undefined) route.connection = parseInput(ConnectionParams, { connection: req.params.connection }, 'params').connection;
    if (typeof req.params.secret === 'string') route.secret = req.params.secret;

    let events: ContactEvent[];
    try {
      events = await receiver.receive(rawRequest(req, options.publicUrl), route, Date.now());
    } catch (error) {
      if (error instanceof WebhookRejectedError) options.metrics.webhookRejected.inc({ platform, status: String(error.status ?? 400) });
      throw error;
    }

    // One durable write for the whole delivery, then the answer: the forwarder hands the events to
    // RunService.enqueueEvent (the one place repeats are dropped) outside the request.
    if (events.length) {
      try {
        await options.ingest.accept(platform, events.map((event) => ({ ...event, connectionId: receiver.connectionIdFor(event, route) })));
      } catch (error) {
        // Nothing accepted may be lost: ask the platform to retry.
        options.logger.error({ err: error, platform, events: events.length }, 'could not store webhook events');
        res.set('Retry-After', '30');
        return sendError(res, 503, 'UNAVAILABLE', 'events could not be stored; retry later');
      }
      options.metrics.webhookEvents.inc({ platform, outcome: 'accepted' }, events.length);
    }
    res.status(200).json({ received: events.length });
  };

  const countOversize: express.ErrorRequestHandler = (error, req, _res, next) => {
    if ((error as { type?: string }).type === 'entity.too.large') {
      options.metrics.webhookRejected.inc({ platform: req.path.split('/')[1] ?? 'unknown', status: '413' });
    }
    next(error);
  };

  for (const [platform, webhook] of Object.entries(options.receivers)) {
    for (const { path, methods } of webhook.paths ?? DEFAULT_PATHS) {
      for (const method of methods) {
        const mount = method === 'GET' ? router.get.bind(router) : router.post.bind(router);
        mount(`/${platform}${path}`, rawBody, countOversize, receive(platform));
      }
    }
  }
  return router;
}
