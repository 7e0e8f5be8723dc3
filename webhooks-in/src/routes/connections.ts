import { Router, type Request } from 'express';
import { z } from 'zod';
import { InputError, PlatformUnreachableError, VerifyHubError, credentialsRefused, type ConnectionRecord, type ConnectionStore, type Logger } from '@verify-hub/core';
import { disconnectConnection, type ConnectionOperations, type RunService, type ScheduleService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { connectionView, latestRunByConnection, platformInfo } from '../connection-view';
import { PlatformRejectedError, type PlatformEntry, type PlatformSetup, type PlatformSetups } from '../platform-setup';
import type { OAuthStates } from '../oauth-states';
import type { ConnectionSaved, KeyFieldChoices, WebhookUrlRenewed } from '../api-types';
import { registerConnectionWebhook } from '../webhook-registration';

export interface ConnectionRoutesOptions {
  runs: RunService;
  connections?: ConnectionStore;
  operations?: ConnectionOperations;
  /** Recurring syncs: a deleted connection's schedules go with it. */
  schedules?: ScheduleService;
  platforms: PlatformSetups;
  /** The registered platforms (their labels name them in messages). */
  catalog: PlatformEntry[];
  states: OAuthStates;
  /** The hub's public base URL; without it the request's own origin. */
  publicUrl?: string;
  logger: Logger;
}

/** A platform's label ("HubSpot") from the registered modules, else its id. */
export function platformLabel(catalog: readonly PlatformEntry[], platform: string): string {
  return catalog.find((entry) => entry.id === platform)?.label ?? platform;
}

/**
 * A registered platform's id (in the catalog, or given a setup entry, even an empty one): an unknown one
 * is refused naming those there are; a known one without a setup answers 404 NOT_CONFIGURED.
 */
function platformParams(options: Pick<ConnectionRoutesOptions, 'platforms' | 'catalog'>) {
  const ids = [...new Set([...options.catalog.filter((entry) => entry.connectable).map((entry) => entry.id), ...Object.keys(options.platforms)])];
  return z.object({ platform: z.string().refine((id) => ids.includes(id), `must be one of: ${ids.join(', ') || '(no platform is registered)'}`) });
}
const ConnectionIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'must be a connection id') });
/** A sign-in's start takes the values of the platform's `choice` key fields picked before it (the list it is for), by field name. */
function oauthStartQuery(setup: PlatformSetup) {
  const choice = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be an id (letters, digits, dot, dash, underscore)').optional();
  return z.strictObject(Object.fromEntries(setup.keyFields.filter((field) => field.choice).map((field) => [field.name, choice])));
}
/** How many recent runs are read to find each connection's latest. */
const RECENT_RUNS = 500;

/** The body of a key connection: the platform's key fields (all required) and an optional label; messages name the bare field. */
function keyBodySchema(setup: PlatformSetup) {
  const shape: Record<string, z.ZodType<string | undefined>> = { label: z.string().trim().min(1).max(200).optional() };
  for (const field of setup.keyFields) shape[field.name] = z.string('is required').trim().min(1, 'is required').max(2000, 'is too long');
  return z.strictObject(shape);
}

function parseKeyBody(setup: PlatformSetup, body: unknown): Record<string, string> {
  const parsed = keyBodySchema(setup).safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || 'body';
    throw new HttpError(400, 'INVALID_INPUT', `${field}: ${issue.message}`, field);
  }
  return Object.fromEntries(Object.entries(parsed.data).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * A platform's failure as an answer: its refusal of a key or of stored credentials is the caller's to
 * fix (400 PLATFORM_REJECTED, never a 401 that the dashboard would read as its own session ending);
 * its other failures are 502. Connector messages carry no secret.
 */
function platformFailure(error: unknown, name: string, secretField?: string): unknown {
  if (error instanceof HttpError || error instanceof InputError || error instanceof PlatformRejectedError || error instanceof PlatformUnreachableError) return error;
  if (credentialsRefused(error)) {
    const message = secretField ? `${secretField}: ${name} refused it` : `${name} refused the stored credentials: connect it again`;
    return new HttpError(400, 'PLATFORM_REJECTED', message, secretField);
  }
  if (error instanceof VerifyHubError) return new HttpError(502, 'PLATFORM_ERROR', `${name}: ${error.message}`);
  return error;
}

/** A path on the hub as the platform must call it: under HUB_PUBLIC_URL, else the request's own origin. */
function absoluteUrl(req: Request, publicUrl: string | undefined, path: string): string {
  const base = (publicUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');
  return new URL(path, `${base}/`).toString();
}

/** Where a platform module puts the hub's paths (its webhook receiver), as `absoluteUrl` does. */
const hubBaseUrl = (req: Request, publicUrl: string | undefined) => new URL(absoluteUrl(req, publicUrl, '/')).origin;

function redirectUriFor(req: Request, publicUrl: string | undefined, platform: string): string {
  return absoluteUrl(req, publicUrl, `/oauth/${platform}/callback`);
}

/**
 * The admin API's connection routes (under /api): list with state, connect with a key, delete, set up
 * the platform's fields, and start an OAuth sign-in. Platform specifics come from `platforms`.
 */
export function connectionRoutes(options: ConnectionRoutesOptions): Router {
  const router = Router();
  const nameOf = (platform: string) => platformLabel(options.catalog, platform);
  const PlatformParams = platformParams(options);
  const store = (): ConnectionStore => {
    if (!options.connections) throw new HttpError(503, 'CONNECTIONS_DISABLED', 'platform connections need the connection store: set HUB_SECRET_KEY');
    return options.connections;
  };
  const setupOf = (platform: string): PlatformSetup => {
    const setup = Object.hasOwn(options.platforms, platform) ? options.platforms[platform] : undefined;
    if (!setup) throw new HttpError(404, 'NOT_CONFIGURED', `${nameOf(platform)} connections are not configured in this deployment`);
    return setup;
  };
  // Sources that are not connections (uploads, stored as connections of their platform) are not listed or changed here.
  const notConnectable = new Set(options.catalog.filter((entry) => !entry.connectable).map((entry) => entry.id));
  const existing = async (id: string): Promise<ConnectionRecord> => {
    const record = await store().get(id);
    if (!record || notConnectable.has(record.platform)) throw new HttpError(404, 'NOT_FOUND', `connection ${id} not found`);
    return record;
  };

  router.get('/connections', async (_req, res) => {
    const records = (await store().list()).filter((r) => !notConnectable.has(r.platform));
    const latest = latestRunByConnection(await options.runs.list({ limit: RECENT_RUNS }));
    const platforms: Record<string, ReturnType<typeof platformInfo>> = {};
    for (const [name, setup] of Object.entries(options.platforms)) if (setup) platforms[name] = platformInfo(setup);
    res.json({ connections: records.map((r) => connectionView(r, latest.get(r.id))), platforms });
  });

  router.post('/connections/:platform', async (req, res) => {
    const { platform } = parseInput(PlatformParams, req.params, 'params');
    const setup = setupOf(platform);
    store();
    const input = parseKeyBody(setup, req.body);
    const secretField = setup.keyFields.find((f) => f.secret)?.name;
    let connected: Awaited<ReturnType<PlatformSetup['connectWithKey']>>;
    try {
      connected = await setup.connectWithKey(input);
    } catch (error) {
      throw platformFailure(error, nameOf(platform), secretField);
    }
    await store().save(connected.record);
    const { url, webhook } = await registerConnectionWebhook(setup, connected.record, hubBaseUrl(req, options.publicUrl), options.logger, store());
    const body: ConnectionSaved = { connection: connectionView(connected.record, undefined) };
    const webhookUrl = url ?? (connected.webhookUrl && absoluteUrl(req, options.publicUrl, connected.webhookUrl));
    if (webhookUrl) body.webhookUrl = webhookUrl;
    if (webhookUrl && connected.webhookRequest) body.webhookRequest = connected.webhookRequest;
    if (webhook) body.webhook = webhook;
    res.status(201).location(`/api/connections`).json(body);
  });

  // The options of a `choice` key field (an account's lists), from the other fields in the body: a key never goes in a URL.
  router.post('/platforms/:platform/choices/:field', async (req, res) => {
    const { platform } = parseInput(PlatformParams, req.params, 'params');
    const setup = setupOf(platform);
    const field = setup.keyFields.find((f) => f.name === req.params.field && f.choice);
    if (!field || !setup.listChoices) throw new HttpError(404, 'NOT_FOUND', `${nameOf(platform)} has no key field ${String(req.params.field)} with choices`);
    const input = parseKeyBody({ ...setup, keyFields: setup.keyFields.filter((f) => f !== field) }, req.body);
    try {
      const answer: KeyFieldChoices = { choices: await setup.listChoices(field.name, input) };
      res.json(answer);
    } catch (error) {
      throw platformFailure(error, nameOf(platform), setup.keyFields.find((f) => f.secret)?.name);
    }
  });

  router.delete('/connections/:id', async (req, res) => {
    const { id } = parseInput(ConnectionIdParams, req.params, 'params');
    await existing(id);
    res.json(await disconnectConnection(id, { connections: store(), runs: options.runs, schedules: options.schedules, operations: options.operations, logger: options.logger }));
  });

  // A pasted-in webhook address holds a secret and is shown once: this hands out a new one (the old stops working).
  router.post('/connections/:id/webhook-url', async (req, res) => {
    const { id } = parseInput(ConnectionIdParams, req.params, 'params');
    const record = await existing(id);
    const renew = options.platforms[record.platform]?.renewWebhookUrl;
    if (!renew) throw new HttpError(404, 'NOT_SUPPORTED', `${nameOf(record.platform)} connections have no webhook address to paste in`);
    const renewed = renew(record);
    await store().save(renewed.record);
    // Registered again where the hub does that: the old registration, with the old secret, is replaced.
    const { webhook } = await registerConnectionWebhook(options.platforms[record.platform], renewed.record, hubBaseUrl(req, options.publicUrl), options.logger, store());
    const answer: WebhookUrlRenewed = {
      webhookUrl: absoluteUrl(req, options.publicUrl, renewed.webhookUrl),
      ...(renewed.webhookRequest ? { webhookRequest: renewed.webhookRequest } : {}),
      ...(webhook ? { webhook } : {}),
    };
    res.json(answer);
  });

  router.post('/connections/:id/ensure-schema', async (req, res) => {
    const { id } = parseInput(ConnectionIdParams, req.params, 'params');
    const record = await existing(id);
    if (!options.operations) throw new HttpError(503, 'OPERATIONS_DISABLED', 'setting up fields is not available in this deployment');
    try {
      res.json(await options.operations.ensureSchema(id));
    } catch (error) {
      throw platformFailure(error, nameOf(record.platform));
    }
  });

  router.get('/oauth/:platform/start', async (req, res) => {
    const { platform } = parseInput(PlatformParams, req.params, 'params');
    const setup = options.platforms[platform];
    if (!setup?.oauth) throw new HttpError(404, 'NOT_CONFIGURED', `${nameOf(platform)} sign-in is not configured: set the app's client id and secret, or connect with a key`);
    const choices = parseInput(oauthStartQuery(setup), req.query, 'query') as Record<string, string | undefined>;
    store();
    const redirectUri = redirectUriFor(req, options.publicUrl, platform);
    const picked = Object.fromEntries(Object.entries(choices).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const state = await options.states.create({ platform, redirectUri, choices: picked });
    res.redirect(302, setup.oauth.authorizeUrl(state, redirectUri, picked));
  });

  return router;
}

/**
 * `GET /oauth/:platform/callback` (outside /api): the platform's redirect after a sign-in. The state
 * must be one this hub issued for this platform, within 10 minutes, once. The answer is always a
 * redirect to the dashboard's connections page, with `connected=<id>` or `error=<message>`.
 */
export function oauthCallbackRoutes(options: ConnectionRoutesOptions): Router {
  const router = Router();
  const back = (query: Record<string, string>) => `/#/connections?${new URLSearchParams(query).toString()}`;

  router.get('/:platform/callback', async (req, res) => {
    const platform = String(req.params.platform);
    const name = platformLabel(options.catalog, platform);
    const query = req.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : undefined;
    const code = typeof query.code === 'string' ? query.code : undefined;
    // Taken first, whatever else is wrong: a state is good for one callback only.
    const start = await options.states.take(state);
    if (!start || start.platform !== platform) return res.redirect(302, back({ error: `The ${name} sign-in link expired or was already used: start again` }));
    if (typeof query.error === 'string' || !code) return res.redirect(302, back({ error: `The ${name} sign-in was cancelled or refused: start again` }));
    const oauth = Object.hasOwn(options.platforms, platform) ? options.platforms[platform]?.oauth : undefined;
    if (!oauth || !options.connections) return res.redirect(302, back({ error: `${name} sign-in is not configured` }));
    try {
      const record = await oauth.exchange(code, start.redirectUri, start.choices ?? {}, state!);
      await options.connections.save(record);
      const { webhook } = await registerConnectionWebhook(options.platforms[platform], record, new URL(start.redirectUri).origin, options.logger, options.connections);
      res.redirect(302, back({ connected: record.id, ...(webhook ? { webhook: webhook.registered ? 'registered' : (webhook.problem ?? 'not registered') } : {}) }));
    } catch (error) {
      const refused = credentialsRefused(error);
      if (!refused) options.logger.error({ err: error, platform }, 'OAuth callback failed');
      const words = refused ? `${name} refused the sign-in: start again` : error instanceof PlatformUnreachableError ? error.message : `Could not connect ${name}: try again later`;
      res.redirect(302, back({ error: words }));
    }
  });

  return router;
}
