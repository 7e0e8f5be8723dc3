import {
  createLogger,
  installedPlatforms,
  isPlatformModule,
  loadConfig,
  type BackgroundTask,
  type Config,
  type ConnectionStore,
  type Logger,
  type PlatformContext,
  type PlatformHost,
  type PlatformModule,
} from '@verify-hub/core';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import type { HubPlatforms, PlatformEntry, PlatformSetups } from '@verify-hub/webhooks-in';

/**
 * A platform is installed by being a dependency of this command named `@verify-hub/connector-<id>`
 * (one line in cli/package.json, written by `npm run new-platform`) whose entry exports the module
 * made with `definePlatform`. Nothing here names a platform (docs/adding-a-platform.md).
 */
export const PLATFORM_PACKAGE = /^@verify-hub\/connector-[a-z][a-z0-9-]*$/;

/** The modules of the installed platform packages, in the order of cli/package.json. */
export function discoverPlatforms(dependencies: Record<string, string> = (require('../package.json') as { dependencies: Record<string, string> }).dependencies): PlatformModule[] {
  const modules: PlatformModule[] = [];
  for (const name of Object.keys(dependencies).filter((dependency) => PLATFORM_PACKAGE.test(dependency))) {
    const exported = Object.values(require(name) as Record<string, unknown>).filter(isPlatformModule);
    if (exported.length !== 1) throw new Error(`${name} must export one platform module made with definePlatform (it exports ${exported.length})`);
    modules.push(exported[0]!);
  }
  return modules;
}

for (const module of discoverPlatforms()) installedPlatforms.register(module);

/** The registered platforms (the installed ones, and any a test or plug-in added at run time). */
export function registeredPlatforms(): readonly PlatformModule[] {
  return installedPlatforms.list();
}

/** The configuration: core's variables and every registered module's (`PlatformModule.environment`), validated together. */
export function loadHubConfig(env: NodeJS.ProcessEnv = process.env, options: { file?: string; ignoreUnknown?: string[] } = {}): Config {
  return loadConfig(env, { ...options, platforms: installedPlatforms.list() });
}

/**
 * Adds a platform at run time (a plug-in, or a test's throwaway platform): its connector serves
 * `sync`, `worker` and `serve` from now on. Registering an id again replaces the module.
 */
export function registerPlatform(module: PlatformModule): void {
  installedPlatforms.register(module);
}

/** Removes a platform, its connector with it (tests clean up after themselves). */
export function unregisterPlatform(id: string): void {
  installedPlatforms.unregister(id);
}

/** The installed platforms as the hub lists them (GET /api/platforms) and names them in messages. */
export function platformCatalog(): PlatformEntry[] {
  return installedPlatforms.list().map((module) => ({ id: module.id, label: module.label, connectable: module.connectable !== false, ...(module.card ? { card: module.card } : {}) }));
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
  for (const module of installedPlatforms.list()) {
    if (module.connectable === false) continue;
    setups[module.id] = module.setup?.(platformContext(module, { config, connections: host.connections, logger }));
  }
  return setups;
}

/** Everything the hub serves for the installed platforms: catalog, connect setups, webhook receivers, extra routes. */
export function hubPlatforms(host: { config: Config; pipeline: SyncPipeline; logger: Logger; services?: PlatformHost }): HubPlatforms {
  const hub: HubPlatforms = { catalog: platformCatalog(), platforms: {}, webhooks: {}, platformRoutes: {} };
  for (const module of installedPlatforms.list()) {
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
  for (const module of installedPlatforms.list()) {
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
