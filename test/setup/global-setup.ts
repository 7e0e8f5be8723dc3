import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRedis } from './redis';
const { WAITS_FILE } = require('./machine-lock') as { WAITS_FILE: string };

/** Makes sure every test file sees a live Redis in REDIS_URL (starting one if none answers). */
export default async function globalSetup(): Promise<void> {
  const redis = await ensureRedis();
  process.env.REDIS_URL = redis.url;
  const runDir = mkdtempSync(join(tmpdir(), 'vh-jest-run-'));
  process.env[WAITS_FILE] = join(runDir, 'lock-waits.jsonl');
  Object.assign(globalThis as object, { __verifyHubStopRedis: redis.stop, __verifyHubRunDir: runDir });
}
