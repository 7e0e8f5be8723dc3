import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { createLogger } from '@verify-hub/core';
import { SyncPipeline } from '@verify-hub/sync-jobs';
import { startServe, type RunningHub } from '../../cli/src/commands/serve';
import { FakeEngine } from '../fakes/engine';
import { silentLogger } from './harness';
import { loadHubConfig } from '../../cli/src/platforms';
import { cliBin } from '../setup/cli-bin';

export interface ServeStack {
  hub: RunningHub;
  engine: FakeEngine;
  uploadDir: string;
  prefix: string;
  /** Stops the hub and the engine, and removes what they left in Redis and on disk. */
  close(): Promise<void>;
}

/**
 * `verify-hub serve` wired from configuration over the fake engine, with a Redis prefix and an upload
 * folder of its own: the real pipeline and workers. `env` adds to (or overrides) the configuration.
 */
export async function startServeStack(name: string, adminToken: string, env: Record<string, string | undefined> = {}): Promise<ServeStack> {
  const engine = new FakeEngine();
  await engine.start();
  const uploadDir = mkdtempSync(join(tmpdir(), `vh-${name}-`));
  const prefix = `test-${name}-${randomUUID().slice(0, 8)}`;
  const config = loadHubConfig({
    REDIS_URL: process.env.REDIS_URL,
    ENGINE_URL: engine.url,
    ENGINE_API_KEY: engine.apiKey,
    HUB_ADMIN_TOKEN: adminToken,
    HUB_SECRET_KEY: 's'.repeat(40),
    HUB_UPLOAD_DIR: uploadDir,
    LOG_LEVEL: 'silent',
    VERIFY_HUB_REDIS_PREFIX: prefix,
    ...env,
  });
  const hub = await startServe(config, { port: 0, host: '127.0.0.1', logger: silentLogger });
  return {
    hub,
    engine,
    uploadDir,
    prefix,
    async close() {
      await hub.close();
      await purgeServeRedis(prefix);
      await engine.stop();
      rmSync(uploadDir, { recursive: true, force: true });
    },
  };
}

/** Polls `read` until `done` holds (or throws with the last value). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Removes what a closed `verify-hub serve` (`startServe`) left in Redis under `prefix`: a fresh
 * pipeline over the same prefix drops its schedules and keys, the hub's own queues (ingest, deliveries)
 * are obliterated, and its keys (sessions, sign-in limits, OAuth states) deleted.
 */
export async function purgeServeRedis(prefix: string, redisUrl = process.env.REDIS_URL): Promise<void> {
  const cleanup = new SyncPipeline({ redisUrl, prefix, logger: createLogger({ level: 'silent' }) });
  try {
    for (const schedule of await cleanup.schedules.listSchedules()) await cleanup.schedules.removeSchedule(schedule.id);
    await cleanup.purge();
    for (const name of [`${prefix}-webhook-ingest`, `${prefix}-hook-deliveries`]) {
      const queue = new Queue(name, { connection: cleanup.redis });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    const leftovers = await cleanup.redis.keys(`${prefix}*`);
    if (leftovers.length) await cleanup.redis.del(...leftovers);
  } finally {
    await cleanup.close();
  }
}

/** `verify-hub serve` as a process of its own (the real CLI entry), on a free port; resolves once it listens. */
export async function serveProcess(env: Record<string, string | undefined>): Promise<{ url: string; child: ChildProcess; exited: Promise<unknown> }> {
  const bin = cliBin(env);
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--host', '127.0.0.1'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /open (http:\/\/\S+?)\/?\s/.exec(stderr);
      if (listening) resolve(listening[1]!.replace('localhost', '127.0.0.1'));
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return { url, child, exited };
}
