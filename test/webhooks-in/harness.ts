import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { createLogger, type Logger } from '@verify-hub/core';
import { createHubApp, type HubApp, type HubAppDeps } from '@verify-hub/webhooks-in';
import { FakeRunService } from './fake-run-service';
import { until } from '../setup/until';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const silentLogger = createLogger({ level: 'silent' });

/** A logger at trace level keeping every line it writes, as text (to look for leaked secrets). */
export function captureLogs(): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'trace', destination }) };
}

export interface Harness {
  hub: HubApp;
  runs: FakeRunService;
  redis: Redis;
  prefix: string;
  uploadDir: string;
  close(): Promise<void>;
}

/**
 * The hub app every hub test builds (this harness and test/security's listening hub): a fake RunService
 * unless one is given, the test Redis under `prefix`, its own upload folder and ingest queue. `dispose`
 * closes it and removes both; the caller's Redis keys and connection are its own to clean.
 */
export function testHubApp(redis: Redis, prefix: string, deps: Partial<HubAppDeps>): { hub: HubApp; runs: FakeRunService; uploadDir: string; dispose(): Promise<void> } {
  const runs = (deps.runs as FakeRunService | undefined) ?? new FakeRunService();
  const uploadDir = mkdtempSync(join(tmpdir(), 'vh-hub-'));
  const hub = createHubApp({
    runs,
    redis,
    adminToken: ADMIN_TOKEN,
    uploadDir,
    keyPrefix: prefix,
    logger: silentLogger,
    delivery: { enabled: false },
    ingest: { queueName: `test-hub-ingest-${randomUUID()}`, backoffMs: 50, attempts: 5 },
    ...deps,
  });
  return {
    hub,
    runs,
    uploadDir,
    async dispose() {
      await hub.close();
      // The app's own queue connection is closed now (a test may have shut the app down): a fresh handle cleans up.
      const connection = redis.duplicate();
      const ingestQueue = new Queue(hub.ingest.queue.name, { connection });
      await ingestQueue.obliterate({ force: true });
      await ingestQueue.close();
      await connection.quit();
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

/** A hub app over a fake RunService and the test Redis, with its own key prefix and upload folder. */
export async function createHarness(overrides: Partial<HubAppDeps> = {}): Promise<Harness> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test:hub:${randomUUID()}:`;
  const { hub, runs, uploadDir, dispose } = testHubApp(redis, prefix, overrides);
  return {
    hub,
    runs,
    redis,
    prefix,
    uploadDir,
    async close() {
      await dispose();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  };
}

export const bearer = { Authorization: `Bearer ${ADMIN_TOKEN}` };

export { until };

/** Waits until every accepted webhook delivery has been handed to the RunService. */
export async function drained(hub: HubApp): Promise<void> {
  await until(async () => (await hub.ingest.backlog()) === 0);
}
