import { join } from 'node:path';
import { ConfigError, SecretBox, closeRedis, createLogger, pricingFromConfig, type ActionReceiver, type Config, type Logger, type Verifier } from '@verify-hub/core';
import type * as Mcp from '@verify-hub/mcp';
import { createRedis, metricsRegistry, type SyncPipeline, type SyncWorkers } from '@verify-hub/sync-jobs';
import { OutboundGuard, createHubApp, startHubServer, type HubAppDeps, type HubServer } from '@verify-hub/webhooks-in';
import { actionCompletionsFor } from './action-completions-wiring';
import { engineFromConfig } from './engine-from-config';
import { engineKeysFromConfig } from './engine-keys-from-config';
import { pipelineFromConfig } from './pipeline-from-config';
import { pipelineHost } from './pipeline-host';
import { hubPlatforms, platformContext, registeredPlatforms, startPlatformTasks } from './platforms';
import { hubKeyPrefix } from './stored-connections';
import { startForwarderThread, webhookIngestOptions, type ForwarderThread } from './webhook-forwarding';

export interface ServeOptions {
  port?: number;
  host?: string;
  /** Run the sync workers in this process too (default true; `--no-workers` for HTTP-only instances). */
  workers?: boolean;
  logger?: Logger;
  /** Completion-webhook delivery settings (tests shorten the backoff). */
  delivery?: HubAppDeps['delivery'];
}

export interface RunningHub {
  url: string;
  server: HubServer;
  pipeline: SyncPipeline;
  /** The thread forwarding accepted webhook events to the pipeline (absent with `--no-workers`). */
  webhookForwarder?: ForwarderThread;
  close(): Promise<void>;
}

/**
 * The hub service and (by default) the sync workers in one process, wired from configuration:
 * the pipeline on REDIS_URL, the connectors, the webhook receivers, the MCP endpoint at /mcp.
 */
export async function startServe(config: Config, options: ServeOptions = {}): Promise<RunningHub> {
  const logger = options.logger ?? createLogger({ name: 'hub', level: config.LOG_LEVEL });
  if (!config.HUB_ADMIN_TOKEN) logger.warn('HUB_ADMIN_TOKEN is not set: the admin API and queue UI answer 503');
  if (!config.HUB_SECRET_KEY) logger.warn('HUB_SECRET_KEY is not set: platform connections and file uploads are unavailable');
  const outbound = outboundGuardFromConfig(config);

  // The same pipeline as `verify-hub worker` (prefix, connectors, engine, limits), so both share the queues.
  const { pipeline, verifier } = await pipelineFromConfig({ withEngine: options.workers !== false, config });
  // The dashboard's single-address check uses the workers' engine; an HTTP-only instance builds its own.
  const checkEngine = verifier ?? httpOnlyVerifier(config, logger);
  // Behind the engine limit every process shares, in the interactive lane: ahead of run chunks.
  const singleCheckVerifier = checkEngine && pipeline.interactiveVerifier(checkEngine);
  const prefix = config.VERIFY_HUB_REDIS_PREFIX;
  const redis = createRedis(config.REDIS_URL);
  const connections = pipeline.connections;
  const box = config.HUB_SECRET_KEY ? new SecretBox(config.HUB_SECRET_KEY) : undefined;

  let workers: SyncWorkers | undefined;
  if (options.workers !== false) workers = pipeline.startWorkers();
  let workersRunning = workers !== undefined;

  // The registered platform modules: connect forms, webhook receivers, their own routes, background tasks.
  // Their routes' fresh checks use the workers' rate-limited engine (an HTTP-only hub: its own).
  const services = pipelineHost(pipeline, workers?.verifier ?? singleCheckVerifier, logger);
  const platforms = hubPlatforms({ config, pipeline, logger, services });
  const platformTasks = workers ? await startPlatformTasks({ config, pipeline, logger, services }) : undefined;

  // Workflow actions (HubSpot's "Verify email address"): cached answers at once, the rest completed by a durable job.
  const actionCompletions = actionCompletionsFor(pipeline, redis, prefix, logger);
  if (workers) actionCompletions.start(workers.verifier);
  const actions: Record<string, ActionReceiver> = {};
  for (const module of registeredPlatforms()) {
    const receiver = module.workflowAction?.receiver(platformContext(module, { config, pipeline, logger }), (call) => actionCompletions.answer(call));
    if (receiver) actions[module.id] = receiver;
  }

  // The dashboard's API keys page: the engine's key store when it shares this Redis, else where keys live.
  const engineKeys = await engineKeysFromConfig(config, redis);

  // Built on the first MCP request: the MCP SDK is not held by a hub nobody's assistant calls.
  let mcp: Mcp.McpHttpHandler | undefined;
  const mcpHandler = () => (mcp ??= (require('@verify-hub/mcp') as typeof Mcp).createMcpHttpHandler({ engineUrl: config.ENGINE_URL, concurrency: config.ENGINE_CONCURRENCY }));
  const hub = createHubApp({
    runs: pipeline,
    redis,
    adminToken: config.HUB_ADMIN_TOKEN,
    ...platforms,
    actions,
    metricsRegistry,
    queues: [...Object.values(pipeline.queues), actionCompletions.queue],
    uploadDir: config.HUB_UPLOAD_DIR ?? join(process.cwd(), 'data', 'uploads'),
    upload: { retentionMs: config.VERIFY_HUB_RETENTION_DAYS * 86_400_000 },
    workersRunning: options.workers === false ? undefined : () => workersRunning && webhookForwarder?.running !== false,
    secretBox: box,
    connections,
    // The dashboard: recurring syncs, estimates and field setup through the pipeline's connectors, and
    // the platforms' connection forms and OAuth sign-in (the same functions as the connect commands).
    schedules: pipeline.schedules,
    accuracy: pipeline,
    operations: pipeline,
    pricing: pricingFromConfig(config),
    verifier: singleCheckVerifier,
    engineKeys,
    publicUrl: config.HUB_PUBLIC_URL,
    trustProxy: trustProxySetting(config.HUB_TRUST_PROXY),
    outbound,
    logger,
    keyPrefix: hubKeyPrefix(config),
    // BullMQ queue names may not hold ':'.
    delivery: { queueName: `${prefix.replace(/:/g, '-')}-hook-deliveries`, ...options.delivery },
    // Accepted webhook events are forwarded on this event loop (taking turns with the acks), by the thread
    // below (HUB_WEBHOOK_FORWARDER=thread), or (--no-workers) by the worker processes.
    ingest: { ...webhookIngestOptions(config), worker: Boolean(workers) && config.HUB_WEBHOOK_FORWARDER === 'loop' },
    // The MCP endpoint authenticates by the caller's engine key (billing is the API's), not the admin token,
    // or by sign-in (OAuth, the admin token on the hub's page): a signed-in assistant uses the hub's engine key.
    mounts: [{ path: '/mcp', handler: (req, res) => void mcpHandler()(req, res) }],
    mcpSignIn: config.ENGINE_URL && config.ENGINE_API_KEY ? { engineKey: config.ENGINE_API_KEY } : undefined,
  });

  // Its own pipeline from the same configuration; it reports its counts to this hub's /metrics.
  const webhookForwarder = workers && config.HUB_WEBHOOK_FORWARDER === 'thread' ? await startForwarderThread(config, logger, (counts) => hub.ingest.countForwarded(counts)) : undefined;

  const server = await startHubServer(hub, {
    port: options.port ?? config.PORT,
    host: options.host ?? config.HUB_HOST,
    drainTimeoutMs: config.HUB_SHUTDOWN_TIMEOUT_MS,
    closeAfter: [
      async () => {
        workersRunning = false;
        await webhookForwarder?.close(config.HUB_SHUTDOWN_TIMEOUT_MS);
        await platformTasks?.stop();
        await workers?.close();
        await actionCompletions.close();
      },
      () => pipeline.close(),
      () => closeRedis(redis),
    ],
  });
  logger.info({ url: server.url, workers: Boolean(workers), engine: config.ENGINE_URL ? 'remote' : 'local' }, 'hub service listening');
  return { url: server.url, server, pipeline, webhookForwarder, close: server.close };
}

/** The engine of an HTTP-only instance (--no-workers), for single checks; a bad engine setting disables them, not the hub. */
function httpOnlyVerifier(config: Config, logger: Logger): Verifier | undefined {
  try {
    return engineFromConfig(config).verifier;
  } catch (error) {
    logger.warn({ err: error }, 'single-address checks are off: the engine is not configured');
    return undefined;
  }
}

/** The address to open: HUB_PUBLIC_URL when set, else the listening one, with localhost for "every interface". */
export function dashboardUrl(listening: string, publicUrl?: string): string {
  if (publicUrl) return publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`;
  const local = listening.replace(/^http:\/\/(?:0\.0\.0\.0|::|\[::\]|127\.0\.0\.1|::1|\[::1\])(?=:\d+$)/, 'http://localhost');
  return `${local}/`;
}

/** HUB_OUTBOUND_ALLOW: internal hosts completion hooks may reach (names, addresses, CIDRs); a bad entry stops start-up. */
function outboundGuardFromConfig(config: Config): OutboundGuard {
  try {
    return new OutboundGuard({ allow: config.HUB_OUTBOUND_ALLOW });
  } catch (error) {
    throw new ConfigError('HUB_OUTBOUND_ALLOW', (error as Error).message);
  }
}

/** HUB_TRUST_PROXY: `true`/`false`, a hop count, or addresses/CIDRs (Express's `trust proxy`). */
function trustProxySetting(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
