import express, { Router, type Request, type Response } from 'express';
import type { PlatformRoute } from '@verify-hub/core';
import { platformInfo } from '../connection-view';
import type { PlatformEntry, PlatformView } from '../api-types';
import type { PlatformSetups } from '../platform-setup';
import { WEBHOOK_BODY_LIMIT, rawRequest } from './webhooks';

export interface PlatformListOptions {
  catalog: PlatformEntry[];
  platforms: PlatformSetups;
  webhooks: Record<string, unknown>;
}

/** The platforms of this deployment: the catalog, else (a hub built without one) the ids of its setups. */
export function platformViews(options: PlatformListOptions): PlatformView[] {
  const catalog = options.catalog.length ? options.catalog : Object.keys(options.platforms).map((id) => ({ id, label: id, connectable: true }));
  return catalog.map((entry) => {
    const setup = entry.connectable && Object.hasOwn(options.platforms, entry.id) ? options.platforms[entry.id] : undefined;
    const view: PlatformView = { ...entry, webhook: Object.hasOwn(options.webhooks, entry.id) };
    if (setup) view.connect = platformInfo(setup);
    return view;
  });
}

/** GET /api/platforms (behind the admin token): what the dashboard iterates for its cards and forms. */
export function platformListRoutes(options: PlatformListOptions): Router {
  const router = Router();
  router.get('/platforms', (_req, res) => {
    res.json({ platforms: platformViews(options) });
  });
  return router;
}

function send(res: Response, answer: Awaited<ReturnType<PlatformRoute['handle']>>): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.set(name, value);
  if (answer.body === undefined) res.end();
  else if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) res.send(answer.body);
  else res.json(answer.body);
}

/**
 * Routes the platforms add (a signed CRM card endpoint), at /platforms/<id><path>, outside the admin
 * API: each checks its caller itself (a platform signature), on the raw bytes and the full URL.
 */
export function platformExtensionRoutes(routes: Record<string, PlatformRoute[]>, publicUrl: string | undefined): Router {
  const router = Router();
  const rawBody = express.raw({ type: () => true, limit: WEBHOOK_BODY_LIMIT });
  for (const [platform, list] of Object.entries(routes)) {
    for (const route of list) {
      const handler = async (req: Request, res: Response) => {
        const params = Object.fromEntries(Object.entries(req.params).map(([name, value]) => [name, String(value)]));
        const query = Object.fromEntries(Object.entries(req.query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
        send(res, await route.handle({ ...rawRequest(req, publicUrl), params, query }));
      };
      const path = `/${platform}${route.path}`;
      if (route.method === 'GET') router.get(path, handler);
      else if (route.method === 'POST') router.post(path, rawBody, handler);
      else if (route.method === 'PUT') router.put(path, rawBody, handler);
      else router.delete(path, rawBody, handler);
    }
  }
  return router;
}
