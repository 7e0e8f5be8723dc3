import { Router, type Request, type Response } from 'express';
import { randomUUID } from 'node:crypto';
import { BatchInputCallbackCompletionBatchRequest, CallbackCompletionRequest, PublicActionDefinitionEgg, firstProblem } from './published-schemas';

/**
 * HubSpot's automation actions API v4 as the fake serves it, checked against the published
 * operations: definitions per app with an OAuth bearer token holding `developers-read` (list) or
 * `developers-write` (create, delete): `?hapikey=` is refused (401) like any other missing token, a
 * token without the scope gets 403; a body that breaks `PublicActionDefinitionEgg` gets 400 naming the
 * field. Callbacks completed with a portal's bearer token (mounted behind the fake's auth and rate
 * limits, so 429 comes with real headers), one (`CallbackCompletionRequest`: `outputFields` and
 * `typedOutputs`) or a batch (`callbacks/complete`, `inputs` of those with a `callbackId`): 204 once,
 * 400 on a bad body and on a callback already completed or never issued (a batch is refused whole).
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
  typedOutputs: Record<string, unknown>;
  /** Completed in a batch call of this many. */
  batchOf: number;
}

export type DeveloperScope = 'developers-read' | 'developers-write';

export class FakeWorkflowActions {
  /** A developer OAuth token with both scopes (`developerToken` makes others). */
  readonly developerAccessToken: string;
  private readonly developerTokens = new Map<string, DeveloperScope[]>();
  readonly definitions = new Map<string, StoredDefinition>();
  readonly completions: Completion[] = [];
  /** Callback ids HubSpot handed out (a blocked action waiting), by portal. */
  private readonly waiting = new Map<string, string>();
  private nextId = 100;

  constructor() {
    this.developerAccessToken = this.developerToken(['developers-read', 'developers-write']);
  }

  /** An OAuth access token of the developer account holding these scopes. */
  developerToken(scopes: DeveloperScope[]): string {
    const token = `dev-oauth-${randomUUID()}`;
    this.developerTokens.set(token, scopes);
    return token;
  }

  /** A blocked action's callback, as HubSpot issues one when it calls the action URL. */
  issueCallback(portalId: string): string {
    const id = `ap-${portalId}-${this.nextId++}-${randomUUID().slice(0, 8)}`;
    this.waiting.set(id, portalId);
    return id;
  }

  /** Mounted before the fake's bearer auth: definitions take a developer OAuth token with the operation's scope. */
  definitionsRouter(): Router {
    const router = Router();
    router.use('/automation/v4/actions/:appId', (req, res, next) => {
      if (req.params.appId === 'callbacks') return next();
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const scopes = token ? this.developerTokens.get(token) : undefined;
      if (!scopes) return void fail(res, 401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found: this API takes an OAuth access token (developers-read, developers-write).');
      const needed: DeveloperScope = req.method === 'GET' ? 'developers-read' : 'developers-write';
      if (!scopes.includes(needed)) return void fail(res, 403, 'MISSING_SCOPES', `This app hasn't been granted all required scopes to make this call: ${needed}`);
      next();
    });
    router.post('/automation/v4/actions/:appId', (req, res) => {
      if (req.params.appId === 'callbacks') return void fail(res, 404, 'OBJECT_NOT_FOUND', 'No route');
      const parsed = PublicActionDefinitionEgg.safeParse(req.body);
      if (!parsed.success) return void fail(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${firstProblem(parsed.error)}`);
      const stored: StoredDefinition = { ...parsed.data, id: String(this.nextId++), appId: req.params.appId, revisionId: '1' };
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
    router.post('/automation/v4/actions/callbacks/complete', (req: Request, res: Response) => {
      const parsed = BatchInputCallbackCompletionBatchRequest.safeParse(req.body);
      if (!parsed.success) return void fail(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${firstProblem(parsed.error)}`);
      const portalId = res.locals.portalId as string;
      const unknown = parsed.data.inputs.findIndex((input) => this.waiting.get(input.callbackId) !== portalId);
      if (unknown >= 0) return void fail(res, 400, 'VALIDATION_ERROR', `inputs.${unknown}.callbackId: no pending callback ${parsed.data.inputs[unknown]!.callbackId}`);
      for (const { callbackId, outputFields, typedOutputs } of parsed.data.inputs) this.complete(callbackId, portalId, outputFields, typedOutputs, parsed.data.inputs.length);
      res.status(204).end();
    });
    router.post('/automation/v4/actions/callbacks/:callbackId/complete', (req: Request, res: Response) => {
      const callbackId = String(req.params.callbackId);
      const parsed = CallbackCompletionRequest.safeParse(req.body);
      if (!parsed.success) return void fail(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${firstProblem(parsed.error)}`);
      if (this.waiting.get(callbackId) !== res.locals.portalId) return void fail(res, 400, 'VALIDATION_ERROR', `No pending callback ${callbackId}`);
      this.complete(callbackId, res.locals.portalId as string, parsed.data.outputFields, parsed.data.typedOutputs, 1);
      res.status(204).end();
    });
    return router;
  }

  private complete(callbackId: string, portalId: string, outputFields: Record<string, string>, typedOutputs: Record<string, unknown>, batchOf: number): void {
    this.waiting.delete(callbackId);
    this.completions.push({ callbackId, portalId, outputFields, typedOutputs, batchOf });
  }
}

function fail(res: Response, status: number, category: string, message: string): void {
  res.status(status).json({ status: 'error', message, correlationId: randomUUID(), category });
}
