import type { Command } from 'commander';
import { EXIT } from '../command';
import { positiveInt } from '../options';

export function register(program: Command): void {
  program
    .command('worker')
    .summary('work on the sync queues (runs, chunks, re-checks, webhook events) until stopped')
    .description(
      [
        'Run the sync workers in this process: page sources, verify chunks, write back, re-check unknowns',
        'and handle webhook events. Start as many as you like, on any machine sharing REDIS_URL: they share',
        'the engine rate limit (VERIFY_HUB_ENGINE_RATE per second) and the platforms\' limits through Redis.',
        'SIGINT or SIGTERM stops taking jobs and lets the active ones finish; a second signal exits at once',
        '(unfinished jobs are then picked up again by another worker).',
        'Engine: ENGINE_URL + ENGINE_API_KEY, else the local engine in this process.',
      ].join('\n'),
    )
    .option('--concurrency <n>', 'chunks at once (default VERIFY_HUB_WORKER_CONCURRENCY or 4)', positiveInt)
    .action(async (options: { concurrency?: number }) => {
      process.exitCode = await worker(options);
    });
}

async function worker(options: { concurrency?: number }): Promise<number> {
  const { loadConfig } = await import('@verify-hub/core');
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const config = loadConfig();
  if (options.concurrency) config.VERIFY_HUB_WORKER_CONCURRENCY = options.concurrency;
  const { pipeline, engineLabel } = await pipelineFromConfig({ withEngine: true, config });
  const workers = pipeline.startWorkers();
  console.error(`verify-hub: worker started (${config.VERIFY_HUB_WORKER_CONCURRENCY} chunks at once, ${engineLabel}); Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        console.error(`verify-hub: ${signal} again: exiting now; unfinished jobs will be picked up by another worker`);
        process.exit(EXIT.failed);
      }
      stopping = true;
      console.error(`verify-hub: ${signal}: finishing the active jobs, then stopping`);
      void workers
        .close()
        .then(() => pipeline.close())
        .then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  console.error('verify-hub: worker stopped');
  return EXIT.ok;
}
