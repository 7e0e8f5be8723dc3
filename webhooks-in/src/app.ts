import express, { type Express, type RequestHandler } from 'express';
import type { Queue } from 'bullmq';
import { createLogger, CredentialThrottle, type Logger } from '@verify-hub/core';
import type { HubAppDeps } from './deps';
import { requireAdminToken } from './auth';
import { errorHandler, notFound, sendError } from './http-errors';
import { HubMetrics } from './http-metrics';
import { requestLog } from './request-log';
import { CompletionHookDelivery, HookStore } from './completion-hooks';
import { OutboundGuard } from './outbound-guard';
import { WebhookIngest, ingestOptions } from './webhook-ingest';
import { WEBHOOK_BODY_LIMIT, webhookRoutes } from './routes/webhooks';
import { declaredSizeLimit } from './declared-size';
import { DEFAULT_UPLOAD_MAX_BYTES } from './upload-receiver';
import { actionRoutes } from './routes/actions';
import { platformExtensionRoutes, platformListRoutes } from './routes/platforms';
import { runRoutes } from './routes/runs';
import { fileRoutes } from './routes/files';
import { hookRoutes } from './routes/hooks';
import { healthRoutes } from './routes/health';
import { sessionRevocationRoutes, sessionRoutes } from './routes/session';
import { connectionRoutes, oauthCallbackRoutes } from './routes/connections';
import { scheduleRoutes } from './routes/schedules';
import { singleCheckRoutes } from './routes/verify';
import { engineKeyRoutes } from './routes/engine-keys';
import { accuracyRoutes } from './routes/accuracy';
import { queueBoard } from './queue-board';
import { SessionStore } from './session';
import { CredentialBinding } from './credential-binding';
import { OAuthStates } from './oauth-states';
import { dashboardRoutes } from './dashboard';
import type * as McpSignIn from './mcp-sign-in';

export interface HubApp {
  app: Express;
  metrics: HubMetrics;
  hooks: HookStore;
  ingest: WebhookIngest;
  /** Absent when `delivery.enabled` is false. */
  delivery?: CompletionHookDelivery;
  logger: Logger;
  /** Readiness answers 503 from now on (first step of a graceful shutdown). */
  markClosing(): void;
  /** Closes what the app opened itself (the ingest and completion-webhook queues and workers); not the injected deps. Idempotent. */
  close(): Promise<void>;
}

export const QUEUE_UI_PATH = '/admin/queues';
/** What a multipart upload may carry besides the file: its boundaries, part headers and form fields. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
/** The MCP SDK's largest message (its transport reads up to 4 MB). */
const MCP_MESSAGE_LIMIT = 4 * 1024 * 1024;

/**
 * The hub service as an Express 5 app, built from its dependencies (DESIGN.md §3: webhooks-in). It
 * opens no port: `startHubServer` does, and `verify-hub serve` wires the real pipeline in.
 */
export function createHubApp(deps: HubAppDeps): HubApp {
  const logger = deps.logger ?? createLogger({ name: 'hub' });
  const prefix = deps.keyPrefix ?? 'vh:hub:';
  const metrics = new HubMetrics();
  const hooks = new HookStore(deps.redis, prefix, deps.secretBox);
  const outbound = deps.outbound ?? new OutboundGuard();
  const delivery =
    deps.delivery?.enabled === false
      ? undefined
      : new CompletionHookDelivery(
          deps.redis,
          hooks,
          {
            queueName: deps.delivery?.queueName ?? 'verify-hub-hook-deliveries',
            attempts: deps.delivery?.attempts ?? 8,
            backoffMs: deps.delivery?.backoffMs ?? 5000,
            timeoutMs: deps.delivery?.timeoutMs ?? 10_000,
          },
          metrics,
          logger,
          outbound,
        );
  delivery?.listen(deps.runs);
  const ingest = new WebhookIngest(deps.redis, deps.runs, ingestOptions(deps.ingest), metrics, logger);
  let closing = false;
  let closed: Promise<void> | undefined;

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);
  app.use(metrics.middleware());
  app.use(requestLog(logger));
  // A declared body over the route's limit is refused before it is read: uploads up to their limit
  // (plus the form's own parts), MCP messages up to the MCP SDK's own 4 MB, everything else up to the
  // JSON and webhook limit.
  const uploadLimit = (deps.upload?.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES) + FORM_OVERHEAD_BYTES;
  app.use(
    declaredSizeLimit(
      (req) => (req.path.startsWith('/api/files') ? uploadLimit : req.path.startsWith('/mcp') ? MCP_MESSAGE_LIMIT : WEBHOOK_BODY_LIMIT),
      // A webhook refused for its size is counted as the receivers count theirs.
      (req) => {
        const [, mount, platform] = req.path.split('/');
        if (mount === 'webhooks') metrics.webhookRejected.inc({ platform: platform || 'unknown', status: '413' });
      },
    ),
  );

  app.use(healthRoutes({ redis: deps.redis, workersRunning: deps.workersRunning, isClosing: () => closing }));
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.exposition(deps.metricsRegistry));
  });

  app.use(
    '/webhooks',
    webhookRoutes({
      receivers: deps.webhooks ?? {},
      ingest,
      metrics,
      logger,
      publicUrl: deps.publicUrl,
    }),
  );
  app.use('/actions', actionRoutes({ receivers: deps.actions ?? {}, publicUrl: deps.publicUrl }));
  app.use('/platforms', platformExtensionRoutes(deps.platformRoutes ?? {}, deps.publicUrl));

  // Every credential check (bearer, Basic, sign-in, MCP tokens) counts under one throttle, shared in Redis;
  // everything signed in is bound to HUB_ADMIN_TOKEN and the revocation generation.
  const throttle = new CredentialThrottle(deps.redis, prefix, deps.throttle, logger);
  const binding = new CredentialBinding(deps.redis, prefix, deps.adminToken);
  const sessions = new SessionStore(deps.redis, prefix, binding);
  const connectionOptions = {
    runs: deps.runs,
    connections: deps.connections,
    operations: deps.operations,
    schedules: deps.schedules,
    platforms: deps.platforms ?? {},
    catalog: deps.catalog ?? [],
    states: new OAuthStates(deps.redis, prefix),
    publicUrl: deps.publicUrl,
    logger,
  };
  const adminOnly = requireAdminToken(deps.adminToken, { throttle, sessions });

  // The platforms' OAuth redirects land here: the state, not a session, authenticates them.
  app.use('/oauth', oauthCallbackRoutes(connectionOptions));

  const api = express.Router();
  api.use(sessionRoutes({ adminToken: deps.adminToken, sessions, throttle }));
  api.use(adminOnly);
  api.use(express.json({ limit: '1mb' }));
  api.use(sessionRevocationRoutes(binding));
  // A platform that is not a connection (uploads) starts its runs from its own route.
  const startsHere = (platform: string) => !(deps.catalog ?? []).some((entry) => entry.id === platform && !entry.connectable);
  api.use(runRoutes(deps.runs, { pricing: deps.pricing, startsHere }));
  api.use(fileRoutes({ runs: deps.runs, uploadDir: deps.uploadDir, maxBytes: deps.upload?.maxBytes, maxRows: deps.upload?.maxRows, abandonedAfterMs: deps.upload?.abandonedAfterMs, retentionMs: deps.upload?.retentionMs, connections: deps.connections, operations: deps.operations, pricing: deps.pricing, logger }));
  api.use(hookRoutes(hooks, outbound));
  api.use(connectionRoutes(connectionOptions));
  api.use(platformListRoutes({ catalog: connectionOptions.catalog, platforms: connectionOptions.platforms, webhooks: deps.webhooks ?? {} }));
  api.use(scheduleRoutes(deps.schedules));
  api.use(singleCheckRoutes({ verifier: deps.verifier, redis: deps.redis, prefix, perMinute: deps.singleCheck?.perMinute }));
  api.use(engineKeyRoutes(deps.engineKeys));
  api.use(accuracyRoutes(deps.accuracy));
  app.use('/api', api);

  const queueAuth = requireAdminToken(deps.adminToken, { throttle, browser: true, sessions });
  const queues = [...(deps.queues ?? []), ingest.queue as Queue, ...(delivery ? [delivery.deliveryQueue] : [])];
  if (queues.length) app.use(QUEUE_UI_PATH, queueAuth, queueBoard(queues, QUEUE_UI_PATH));
  else app.use(QUEUE_UI_PATH, queueAuth, (_req, res) => sendError(res, 404, 'NOT_FOUND', 'no queues to show'));

  // MCP sign-in: the authorization server's routes at the root, and its gate in front of the MCP mount.
  let mcpGate: RequestHandler | undefined;
  const mcpPath = deps.mcpSignIn?.path ?? '/mcp';
  if (deps.mcpSignIn && (!deps.adminToken || !deps.publicUrl)) {
    logger.warn(`MCP sign-in is off: it needs ${deps.adminToken ? 'HUB_PUBLIC_URL' : 'HUB_ADMIN_TOKEN'}; ${mcpPath} takes API keys only`);
  } else if (deps.mcpSignIn) {
    // Loaded only when sign-in is on: the MCP SDK's authorization server is several MB a hub without it need not hold.
    const { mcpSignIn } = require('./mcp-sign-in') as typeof McpSignIn;
    const signIn = mcpSignIn({ redis: deps.redis, prefix, adminToken: deps.adminToken!, publicUrl: deps.publicUrl!, mcpPath, throttle, binding, logger }, deps.mcpSignIn);
    app.use(signIn.routes);
    mcpGate = signIn.gate;
  }

  for (const mount of deps.mounts ?? []) {
    if (mount.path === mcpPath && mcpGate) app.use(mount.path, mcpGate, mount.handler);
    else if (mount.auth) app.use(mount.path, adminOnly, mount.handler);
    else app.use(mount.path, mount.handler);
  }

  // The dashboard: the single-page app at / and its bundle at /assets/* (after the API, before the 404).
  app.use(dashboardRoutes({ logger }));

  app.use(notFound);
  app.use(errorHandler(logger));

  return {
    app,
    metrics,
    hooks,
    ingest,
    delivery,
    logger,
    markClosing: () => {
      closing = true;
    },
    close: () =>
      (closed ??= (async () => {
        closing = true;
        await ingest.close();
        await delivery?.close();
      })()),
  };
}
