import { once } from 'node:events';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Config, Logger } from '@verify-hub/core';
import type { ForwardedCounts } from '@verify-hub/webhooks-in';

/**
 * Where accepted webhook deliveries wait to be handed to the pipeline, and who hands them over:
 * `verify-hub serve` with workers forwards them in a thread of its own; with `--no-workers` the
 * `verify-hub worker` processes do. Either way the hub's HTTP event loop only receives and stores.
 */
export function webhookIngestQueueName(redisPrefix: string): string {
  // BullMQ queue names may not hold ':'.
  return `${redisPrefix.replace(/:/g, '-')}-webhook-ingest`;
}

/**
 * The ingest queue's place and holds: VERIFY_HUB_JOB_LOCK_MS and VERIFY_HUB_STALLED_INTERVAL_MS, where
 * set, shorten a forwarder's hold on a delivery as they do a worker's on a job (else 10 s and 5 s).
 */
export function webhookIngestOptions(config: Config): { queueName: string; lockDurationMs?: number; stalledIntervalMs?: number } {
  return { queueName: webhookIngestQueueName(config.VERIFY_HUB_REDIS_PREFIX), lockDurationMs: config.VERIFY_HUB_JOB_LOCK_MS, stalledIntervalMs: config.VERIFY_HUB_STALLED_INTERVAL_MS };
}

export interface ForwarderThreadData {
  config: Config;
}

export type ForwarderThreadMessage = { ready: true } | { stopped: true } | { forwarded: ForwardedCounts };

export interface ForwarderThread {
  /** False once the thread has ended (failed, or closed). */
  readonly running: boolean;
  /** Stops taking deliveries, finishes the one in hand, then ends the thread (after `timeoutMs`, ends it anyway: the delivery stays queued). */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Starts the forwarder thread (webhook-forwarder-thread.ts) on serve's configuration (which names its
 * queue: webhookIngestOptions) and resolves once it forwards. `onForwarded` gets each delivery's counts, on this thread.
 */
export async function startForwarderThread(config: Config, logger: Logger, onForwarded: (counts: ForwardedCounts) => void): Promise<ForwarderThread> {
  const thread = threadRunning('webhook-forwarder-thread', { config } satisfies ForwarderThreadData);
  let running = true;
  const exited = once(thread, 'exit').then(() => void (running = false));
  let ready!: () => void;
  let stopped!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const isStopped = new Promise<void>((resolve) => (stopped = resolve));
  thread.on('message', (message: ForwarderThreadMessage) => {
    if ('forwarded' in message) onForwarded(message.forwarded);
    else if ('ready' in message) ready();
    else stopped();
  });
  let startError: Error | undefined;
  thread.on('error', (error) => {
    startError ??= error;
    logger.error({ err: error }, 'webhook forwarder thread failed; accepted deliveries wait in the queue');
  });
  await Promise.race([isReady, exited]);
  if (!running) throw new Error(`the webhook forwarder thread did not start: ${startError?.message ?? 'it exited'}`);
  return {
    get running() {
      return running;
    },
    async close(timeoutMs = 30_000) {
      if (!running) return;
      thread.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([isStopped, exited, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
      await thread.terminate();
    },
  };
}

/** A thread running the module `name` beside this one: compiled JavaScript, or (from source, in the checkout) through its TypeScript hook. */
function threadRunning(name: string, workerData: unknown): Worker {
  const file = join(__dirname, `${name}${extname(__filename)}`);
  if (extname(__filename) !== '.ts') return new Worker(file, { workerData });
  const root = join(__dirname, '..', '..');
  // scripts/register-ts.js transpiles with swc: ts-node cost each thread ~4 s of CPU in TypeScript's transpiler.
  const boot = `require(${JSON.stringify(join(root, 'scripts', 'register-ts.js'))}); require(${JSON.stringify(file)});`;
  return new Worker(boot, { eval: true, workerData });
}
