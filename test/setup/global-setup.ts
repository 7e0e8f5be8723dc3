import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCliForTests } from './cli-build';
import { ensureRedis } from './redis';
const { WAITS_FILE } = require('./machine-lock') as { WAITS_FILE: string };
const { LEFTOVERS_FILE } = require('./worker-leftovers') as { LEFTOVERS_FILE: string };
const { SUITE_CPU_FILE } = require('./suite-cpu') as { SUITE_CPU_FILE: string };

/**
 * Once per run: a live Redis in REDIS_URL for every test file (started if none answers), and one build
 * of the CLI (VHTEST_CLI_BIN) for the suites that spawn it.
 */
export default async function globalSetup(): Promise<void> {
  const redis = await ensureRedis();
  process.env.REDIS_URL = redis.url;
  const runDir = mkdtempSync(join(tmpdir(), 'vh-jest-run-'));
  Object.assign(globalThis as object, { __verifyHubStopRedis: redis.stop, __verifyHubRunDir: runDir });
  process.env[WAITS_FILE] = join(runDir, 'lock-waits.jsonl');
  process.env[LEFTOVERS_FILE] = join(runDir, 'worker-leftovers.jsonl');
  process.env[SUITE_CPU_FILE] = join(runDir, 'suite-cpu.jsonl');
  mkdirSync(join(runDir, 'cli'));
  process.env.VHTEST_CLI_BIN = await buildCliForTests(join(__dirname, '..', '..'), join(runDir, 'cli'));
}
