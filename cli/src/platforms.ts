import { createLogger, loadConfig, type BackgroundTask, type Config, type ConnectionStore, type Logger, type PlatformContext, type PlatformHost, type PlatformModule } from '@verify-hub/core';
import { filePlatform } from '@verify-hub/connector-file';
import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import { mailchimpPlatform } from '@verify-hub/connector-mailchimp';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import type { HubPlatforms, PlatformEntry, PlatformSetups } from '@verify-hub/webhooks-in';

/**
 * The installed platforms: the one place that names them (docs/adding-a-platform.md). The commands,
 * the hub and the dashboard iterate this list; each module is its connector folder's `definePlatform`.
 */
const installed: PlatformModule[] = [filePlatform, hubspotPlatform, mailchimpPlatform];

/** The sync pipeline's (loaded on use: the CLI lists the modules' commands without it). */
const registerConnector = (module: PlatformModule) =>
  (require('@verify-hub/sync-jobs') as typeof import('@verify-hub/sync-jobs')).registerConnector(module.id, module.connector, { reconnectAdvice: module.reconnectAdvice });

/** Which connector serves each platform in `sync`, `worker`, `runs` and `serve`: every installed module's. */
export function registerPlatformConnectors(): void {
  for (const module of installed) registerConnector(module);
}

export function registeredPlatforms(): readonly PlatformModule[] {
  return installed;
}

/** The configuration: core's variables and every registered module's (`PlatformModule.environment`), validated together. */
export function loadHubConfig(env: NodeJS.ProcessEnv = process.env, options: { file?: string; ignoreUnknown?: string[] } = {}): Config {
  return loadConfig(env, { ...options, platforms: installed });
}

/**
 * Adds a platform at run time (a plug-in, or a test's throwaway platform): its connector serves
 * `sync`, `worker` and `serve` from now on. Registering an id again replaces the module.
 */
export function registerPlatform(module: PlatformModule): void {
  const at = installed.findIndex((known) => known.id === module.id);
  if (at >= 0) installed.splice(at, 1, module);
  else installed.push(module);
  registerConnector(module);
}

/** Removes a platform registered at run time (tests clean up after themselves). */
export function unregisterPlatform(id: string): void {
  const at = installed.findIndex((known) => known.id === id);
  if (at >= 0) installed.splice(at, 1);
}

/** The installed platforms as the hub lists them (GET /api/platforms) and names them in messages. */
export function platformCatalog(): PlatformEntry[] {
  return installed.map((module) => ({ id: module.id, label: module.label, connectable: module.connectable !== false, ...(module.card ? { card: module.card } : {}) }));
}

/** What a module's host-facing parts are built from, for one process. */
export function platformContext(module: PlatformModule, host: { config: Config; connections?: ConnectionStore; pipeline?: SyncPipeline; logger: Logger; services?: PlatformHost }): PlatformContext {
  return {
    config: host.config,
    host: host.services,
    connections: host.connections ?? host.pipeline?.connections,
    logger: host.logger.child({ platform: module.id }),
    openConnector: async (connectionId) => {
      if (!host.pipeline) throw new Error(`${module.label} connectors are opened through the sync pipeline, which this command has not started`);
      return host.pipeline.openConnector(module.id, connectionId);
    },
  };
}

/** How each connectable platform is connected here (key form, OAuth), for the hub and the connect commands. */
export function platformSetups(config: Config, host: { logger?: Logger; connections?: ConnectionStore } = {}): PlatformSetups {
  const setups: PlatformSetups = {};
  const logger = host.logger ?? createLogger({ level: 'silent' });
  for (const module of installed) {
    if (module.connectable === false) continue;
    setups[module.id] = module.setup?.(platformContext(module, { config, connections: host.connections, logger }));
  }
  return setups;
}

/** Everything the hub serves for the installed platforms: catalog, connect setups, webhook receivers, extra routes. */
export function hubPlatforms(host: { config: Config; pipeline: SyncPipeline; logger: Logger; services?: PlatformHost }): HubPlatforms {
  const hub: HubPlatforms = { catalog: platformCatalog(), platforms: {}, webhooks: {}, platformRoutes: {} };
  for (const module of installed) {
    const context = platformContext(module, host);
    if (module.connectable !== false) hub.platforms[module.id] = module.setup?.(context);
    const webhook = module.webhook?.(context);
    if (webhook) hub.webhooks[module.id] = webhook;
    const routes = module.routes?.(context) ?? [];
    if (routes.length) hub.platformRoutes[module.id] = routes;
  }
  return hub;
}

/** The platforms' background readers and pollers, started together; `stop` stops those that started. */
export async function startPlatformTasks(host: { config: Config; pipeline: SyncPipeline; logger: Logger; services: PlatformHost }): Promise<{ tasks: BackgroundTask[]; stop(): Promise<void> }> {
  const started: BackgroundTask[] = [];
  for (const module of installed) {
    for (const task of module.tasks?.(platformContext(module, host)) ?? []) {
      await task.start();
      started.push(task);
      host.logger.info({ platform: module.id, task: task.name }, 'platform task started');
    }
  }
  return {
    tasks: started,
    stop: async () => {
      await Promise.allSettled(started.map((task) => task.stop()));
    },
  };
}
