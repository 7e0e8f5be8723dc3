import { Router, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';

/**
 * HubSpot's automation actions API v4 as the fake serves it: definitions per app under the developer
 * API key (`?hapikey=`, 401 otherwise), 400 naming a missing field; callbacks completed with a portal's
 * bearer token (mounted behind the fake's auth and rate limits, so 429 comes with real headers),
 * 204 once, 400 on a bad body and on a callback already completed or never issued.
 */
export interface StoredDefinition {
  id: string;
  appId: string;
  revisionId: string;
  [field: string]: unknown;
}

export interface Completion {
  callbackId: string;
  portalId: string;
  outputFields: Record<string, string>;
}

const REQUIRED = ['actionUrl', 'objectTypes', 'inputFields', 'labels', 'functions', 'published'] as const;

export class FakeWorkflowActions {
  readonly developerApiKey = `dev-${randomUUID()}`;
  readonly definitions = new Map<string, StoredDefinition>();
  readonly completions: Completion[] = [];
  /** Callback ids HubSpot handed out (a blocked action waiting), by portal. */
  private readonly waiting = new Map<string, string>();
  private nextId = 100;

  /** A blocked action's callback, as HubSpot issues one when it calls the action URL. */
  issueCallback(portalId: string): string {
    const id = `ap-${portalId}-${this.nextId++}-${randomUUID().slice(0, 8)}`;
    this.waiting.set(id, portalId);
    return id;
  }

  /** Mounted before the fake's bearer auth: definitions take the developer API key. */
  definitionsRouter(): Router {
    const router = Router();
    router.use('/automation/v4/actions/:appId', (req, res, next) => {
      if (req.params.appId === 'callbacks') return next();
      if (req.query.hapikey !== this.developerApiKey) return void fail(res, 401, 'INVALID_AUTHENTICATION', 'The developer API key provided is invalid.');
      next();
    });
    router.post('/automation/v4/actions/:appId', (req, res) => {
      if (req.params.appId === 'callbacks') return void fail(res, 404, 'OBJECT_NOT_FOUND', 'No route');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const missing = REQUIRED.find((field) => body[field] === undefined);
      if (missing) return void fail(res, 400, 'VALIDATION_ERROR', `Missing required field: ${missing}`);
      const stored: StoredDefinition = { ...body, id: String(this.nextId++), appId: req.params.appId, revisionId: '1' };
      this.definitions.set(stored.id, stored);
      res.status(201).json(stored);
    });
    router.get('/automation/v4/actions/:appId', (req, res) => {
      const results = [...this.definitions.values()].filter((d) => d.appId === req.params.appId);
      res.json({ results });
    });
    router.delete('/automation/v4/actions/:appId/:definitionId', (req, res) => {
      const found = this.definitions.get(req.params.definitionId);
      if (!found || found.appId !== req.params.appId) return void fail(res, 404, 'OBJECT_NOT_FOUND', `No action definition ${req.params.definitionId}`);
      this.definitions.delete(found.id);
      res.status(204).end();
    });
    return router;
  }

  /** Mounted behind the fake's bearer auth and limits: `res.locals.portalId` is the token's portal. */
  callbacksRouter(): Router {
    const router = Router();
    router.post('/automation/v4/actions/callbacks/:callbackId/complete', (req: Request, res: Response) => {
      const callbackId = String(req.params.callbackId);
      const outputFields = (req.body as { outputFields?: unknown } | undefined)?.outputFields;
      if (!outputFields || typeof outputFields !== 'object' || Array.isArray(outputFields)) return void fail(res, 400, 'VALIDATION_ERROR', 'outputFields: is required');
      if (this.waiting.get(callbackId) !== res.locals.portalId) return void fail(res, 400, 'VALIDATION_ERROR', `No pending callback ${callbackId}`);
      this.waiting.delete(callbackId);
      this.completions.push({ callbackId, portalId: res.locals.portalId as string, outputFields: outputFields as Record<string, string> });
      res.status(204).end();
    });
    return router;
  }
}

function fail(res: Response, status: number, category: string, message: string): void {
  res.status(status).json({ status: 'error', message, correlationId: randomUUID(), category });
}
