import type { Command } from 'commander';
import { ConfigError, createLogger, type CliCommand, type PlatformContext, type PlatformModule } from '@verify-hub/core';
import { createRedisLimiterFactory } from '@verify-hub/sync-jobs';
import { loadHubConfig } from './platforms';
import { openConnectionStore } from './stored-connections';

/**
 * The CLI commands a platform module describes (`CliCommand`), built with commander under
 * `verify-hub <id>`. Their context (configuration, stored connections, connectors over the shared
 * Redis limiter) is opened when one runs, and closed after it.
 */
export function registerPlatformCommands(program: Command, module: PlatformModule): void {
  if (!module.commands?.length) return;
  const group = program.command(module.id).description(`${module.label}: ${module.card?.description ?? 'platform commands'}`);
  for (const spec of module.commands) addCommand(group, spec, module);
}

function addCommand(parent: Command, spec: CliCommand, module: PlatformModule): void {
  const command = parent.command(spec.name).description(spec.description);
  for (const option of spec.options ?? []) {
    if (option.required) command.requiredOption(option.flags, option.description, option.default);
    else command.option(option.flags, option.description, option.default);
  }
  for (const sub of spec.subcommands ?? []) addCommand(command, sub, module);
  const run = spec.run;
  if (!run) return;
  command.action(async (...received: unknown[]) => {
    // commander passes the positional arguments, then the options, then the command itself.
    const args = received.slice(0, -2).map(String);
    const options = received.at(-2) as Record<string, unknown>;
    const opened = openContext(module);
    try {
      const failed = await run(args, options, async () => opened.context);
      if (failed) process.exitCode = failed;
    } finally {
      opened.close();
    }
  });
}

/**
 * The context of one command run. The stored connections open on first use (a command that needs none
 * needs no HUB_SECRET_KEY or Redis); without HUB_SECRET_KEY that use throws the ConfigError naming it.
 */
function openContext(module: PlatformModule): { context: PlatformContext; close(): void } {
  const config = loadHubConfig(process.env);
  let opened: ReturnType<typeof openConnectionStore> | undefined;
  const open = () => (opened ??= openConnectionStore(config));
  const context: PlatformContext = {
    config,
    logger: createLogger({ name: module.id, level: config.LOG_LEVEL }),
    get connections() {
      return open().store;
    },
    openConnector: async (connectionId) => {
      const { redis, keys, store } = open();
      const record = await store.get(connectionId);
      if (!record || record.platform !== module.id) throw new ConfigError('--connection', `no ${module.label} connection named ${connectionId}`);
      // The module's variables, as the pipeline's registry hands them (an OAuth refresh needs the app's keys).
      const environment = (module.environment as { read?(c: typeof config): Record<string, unknown> } | undefined)?.read?.(config);
      return module.connector(record, { limiter: createRedisLimiterFactory(redis, keys), saveCredentials: (credentials) => store.saveCredentials(record.id, credentials), ...(environment ? { environment } : {}) });
    },
  };
  return { context, close: () => opened?.redis.disconnect() };
}
