import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger } from '@verify-hub/core';
import { createHubApp, type HubApp, type HubAppDeps } from '@verify-hub/webhooks-in';
import { FakeRunService } from './fake-run-service';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const silentLogger = createLogger({ level: 'silent' });

export interface Harness {
  hub: HubApp;
  runs: FakeRunService;
  redis: Redis;
  prefix: string;
  uploadDir: string;
  close(): Promise<void>;
}

/** A hub app over a fake RunService and the test Redis, with its own key prefix and upload folder. */
export async function createHarness(overrides: Partial<HubAppDeps> = {}): Promise<Harness> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const runs = (overrides.runs as FakeRunService | undefined) ?? new FakeRunService();
  const prefix = `test:hub:${randomUUID()}:`;
  const uploadDir = mkdtempSync(join(tmpdir(), 'vh-hub-'));
  const hub = createHubApp({
    runs,
    redis,
    adminToken: ADMIN_TOKEN,
    uploadDir,
    keyPrefix: prefix,
    logger: silentLogger,
    delivery: { enabled: false },
    ...overrides,
  });
  return {
    hub,
    runs,
    redis,
    prefix,
    uploadDir,
    async close() {
      await hub.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

export const bearer = { Authorization: `Bearer ${ADMIN_TOKEN}` };
