import type { Command } from 'commander';
import { InputError } from '@verify-hub/core';
import { EXIT } from '../command';

/**
 * `verify-hub disconnect <connection-id>`: what the dashboard's delete does (sync-jobs' disconnect.ts):
 * removes the connection's schedules, cancels its unfinished runs, deletes what the hub made on the
 * platform (Mailchimp webhooks) and the stored token, and prints what it deleted.
 */
export function register(program: Command): void {
  program
    .command('disconnect')
    .description("Disconnect a stored platform connection: its schedules, unfinished runs, the hub's webhooks on the platform and the stored token (needs HUB_SECRET_KEY, REDIS_URL)")
    .argument('<connection-id>', 'the connection, as `verify-hub serve` lists it (for example mailchimp-us2-abc123)')
    .option('--json', 'print JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      process.exitCode = await disconnect(id, options);
    });
}

async function disconnect(id: string, options: { json?: boolean }): Promise<number> {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(id)) throw new InputError('connection-id', 'must be a connection id (letters, digits, dot, dash or underscore)');
  const { createLogger } = await import('@verify-hub/core');
  const { disconnectConnection } = await import('@verify-hub/sync-jobs');
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const { pipeline, config } = await pipelineFromConfig();
  try {
    const connections = pipeline.connections;
    if (!connections) throw new InputError('HUB_SECRET_KEY', 'is needed to read stored connections');
    if (!(await connections.get(id))) throw new InputError('connection-id', `no stored connection "${id}"`);
    const outcome = await disconnectConnection(id, { connections, runs: pipeline, schedules: pipeline.schedules, operations: pipeline, logger: createLogger({ name: 'verify-hub', level: config.LOG_LEVEL }) });
    console.log(options.json ? JSON.stringify(outcome, null, 2) : outcome.summary);
    return EXIT.ok;
  } finally {
    await pipeline.close();
  }
}
