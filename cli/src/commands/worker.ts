import type { Command } from 'commander';
import { EXIT } from '../command';
import { portNumber, positiveInt } from '../options';

export function register(program: Command): void {
  program
    .command('worker')
    .summary('work on the sync queues (runs, chunks, re-checks, webhook events) until stopped')
    .description(
      [
        'Run the sync workers in this process: page sources, verify chunks, write back, re-check unknowns',
        'and handle webhook events (forwarding those a `serve --no-workers` hub accepted, off its event loop).',
        'Start as many as you like, on any machine sharing REDIS_URL: they share',
        'the engine rate limit (VERIFY_HUB_ENGINE_RATE per second) and the platforms\' limits through Redis.',
        'SIGINT or SIGTERM stops taking jobs and lets the active ones finish; a second signal exits at once',
        '(unfinished jobs are then picked up again by another worker).',
        'Engine: ENGINE_URL + ENGINE_API_KEY, else the local engine in this process.',
        'With --health-port (or VERIFY_HUB_WORKER_HEALTH_PORT) it answers /healthz and /readyz there, on HUB_HOST.',
      ].join('\n'),
    )
    .option('--concurrency <n>', 'chunks at once (default VERIFY_HUB_WORKER_CONCURRENCY or 4)', positiveInt)
    .option('--health-port <n>', 'serve /healthz and /readyz on this port (default VERIFY_HUB_WORKER_HEALTH_PORT; none if unset)', portNumber)
    .action(async (options: WorkerOptions) => {
      process.exitCode = await worker(options);
    });
}

interface WorkerOptions {
  concurrency?: number;
  healthPort?: number;
}

async function worker(options: WorkerOptions): Promise<number> {
  const { createLogger } = await import('@verify-hub/core');
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const { loadHubConfig } = await import('../platforms');
  const config = loadHubConfig();
  if (options.concurrency) config.VERIFY_HUB_WORKER_CONCURRENCY = options.concurrency;
  const { pipeline, engineLabel } = await pipelineFromConfig({ withEngine: true, config });
  const workers = pipeline.startWorkers();
  // Blocked workflow actions complete here too: with an HTTP-only hub, a worker is the only process running jobs.
  const { actionCompletionsFor } = await import('../action-completions-wiring');
  const logger = createLogger({ name: 'worker', level: config.LOG_LEVEL });
  const actionCompletions = actionCompletionsFor(pipeline, pipeline.redis, config.VERIFY_HUB_REDIS_PREFIX, logger);
  actionCompletions.start(workers.verifier);
  // The platform modules' background readers and pollers, as `serve` with workers runs them.
  const { startPlatformTasks } = await import('../platforms');
  const { pipelineHost } = await import('../pipeline-host');
  const platformTasks = await startPlatformTasks({ config, pipeline, logger, services: pipelineHost(pipeline, workers.verifier, logger) });
  // Webhook events a hub accepted (and stored) are handed to the pipeline here, off the hub's HTTP event loop.
  const { startWebhookForwarder } = await import('@verify-hub/webhooks-in');
  const { webhookIngestOptions } = await import('../webhook-forwarding');
  const webhookForwarder = startWebhookForwarder(pipeline.redis, pipeline, webhookIngestOptions(config), logger);
  let running = true;
  const healthPort = options.healthPort ?? config.VERIFY_HUB_WORKER_HEALTH_PORT;
  // Readiness as the hub's: Redis answers and the workers run; it fails as soon as stopping starts.
  const health =
    healthPort === undefined
      ? undefined
      : await (await import('@verify-hub/webhooks-in')).startHealthServer({ redis: pipeline.redis, workersRunning: () => running, isClosing: () => !running, port: healthPort, host: config.HUB_HOST });
  const healthNote = health ? `, health at ${health.url}/readyz` : '';
  console.error(`verify-hub: worker started (${config.VERIFY_HUB_WORKER_CONCURRENCY} chunks at once, ${engineLabel}${healthNote}); Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        console.error(`verify-hub: ${signal} again: exiting now; unfinished jobs will be picked up by another worker`);
        process.exit(EXIT.failed);
      }
      stopping = true;
      running = false;
      console.error(`verify-hub: ${signal}: finishing the active jobs, then stopping`);
      void platformTasks
        .stop()
        .then(() => workers.close())
        .then(() => actionCompletions.close())
        .then(() => webhookForwarder.close())
        .then(() => health?.close())
        .then(() => pipeline.close())
        .then(resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  console.error('verify-hub: worker stopped');
  return EXIT.ok;
}
