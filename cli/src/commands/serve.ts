import type { Command } from 'commander';
import type { Config } from '@verify-hub/core';
import { portNumber } from '../options';
import type { RunningHub, ServeOptions } from '../serve-hub';

export type { RunningHub, ServeOptions } from '../serve-hub';

/** The hub service and its workers (serve-hub.ts), loaded on use so that `verify-hub --help` stays quick. */
export async function startServe(config: Config, options: ServeOptions = {}): Promise<RunningHub> {
  return (await import('../serve-hub')).startServe(config, options);
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Run the hub service (webhooks, admin API, health, metrics, queue UI) and the sync workers in one process')
    .option('--port <n>', 'port to listen on (default: PORT, 8080)', portNumber)
    .option('--host <address>', 'address to listen on (default: HUB_HOST, 0.0.0.0)')
    .option('--no-workers', 'serve HTTP only; run workers elsewhere with `verify-hub worker`')
    .action(async (opts: { port?: number; host?: string; workers: boolean }) => {
      const { loadHubConfig } = await import('../platforms');
      const { dashboardUrl } = await import('../serve-hub');
      const { untilSignal } = await import('../until-signal');
      const config = loadHubConfig(process.env);
      const running = await startServe(config, { port: opts.port, host: opts.host, workers: opts.workers });
      // For the person who started it: on stderr, so stdout stays one JSON log line per event for log collectors.
      console.error(`verify-hub is running: open ${dashboardUrl(running.url, config.HUB_PUBLIC_URL)}`);
      await untilSignal(() => running.close());
    });
}
