/**
 * One HubSpot sync run worked by N `verify-hub worker` processes of the built CLI, against the fake
 * engine and the fake HubSpot served from this process. The run is started here (no workers in this
 * process); throughput is verifications per second between the first and the last engine call, and
 * contacts written per second from start to completion.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { createLogger, type ConnectionRecord } from '@verify-hub/core';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { ConnectorRegistry, SyncPipeline } from '@verify-hub/sync-jobs';
import type { FakeEngine } from '../../test/fakes/engine';
import type { FakeHubSpot } from '../../test/fakes/hubspot/fake-hubspot';

const CLI = join(__dirname, '..', '..', 'cli', 'bin', 'verify-hub.js');
const SECRET_KEY = 'bench-scale-secret-key-0123456789abcdef';
const silent = createLogger({ level: 'silent' });
/**
 * The portal's API limits as the connector applies them, raised far above HubSpot's tiers: at the
 * default tier (100 calls per 10 s, shared by every process) the portal, not the workers, caps a run
 * at about 330 contacts/s, and adding processes shows nothing.
 */
const PORTAL_LIMITS = { requestsPerTenSeconds: 1_000_000, searchPerSecond: 10_000 };

export interface ScaleRun {
  processes: number;
  contacts: number;
  /** Verifications per second between the first and the last engine call of the run. */
  engineRate: number;
  /** Contacts written per second from the run's start to its completion. */
  endToEndRate: number;
  status: string;
  /** Cores busy on average during the run: the worker processes, this process (the fakes), Redis. */
  cpu: { workers: number; fakes: number; redis: number; machine: number };
}

/** CPU seconds a process has used (user + system), from /proc: Linux only. */
function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/** CPU seconds the Redis server has used (INFO cpu). */
async function redisCpuSeconds(pipeline: SyncPipeline): Promise<number> {
  const info = await pipeline.redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

export interface ScaleSetup {
  redisUrl: string;
  engine: FakeEngine;
  hubspot: FakeHubSpot;
  contacts: number;
  /** VERIFY_HUB_ENGINE_RATE for the workers (absent: no limit of ours). */
  engineRate?: number;
}

async function startWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'worker'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
  const started = Date.now();
  while (!stderr.includes('worker started')) {
    if (child.exitCode !== null || Date.now() - started > 60_000) throw new Error(`worker did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs one sync of `setup.contacts` fresh contacts with `processes` worker processes. */
export async function syncWithWorkers(setup: ScaleSetup, processes: number): Promise<ScaleRun> {
  const prefix = `vhbench-scale-${randomUUID().slice(0, 8)}`;
  const portalId = String(70_000 + Math.floor(Math.random() * 20_000));
  const token = `bench-scale-${portalId}`;
  setup.hubspot.addPortal({ portalId, token, windowLimit: 10_000_000, searchPerSecond: 10_000 });
  setup.hubspot.addContacts(portalId, Array.from({ length: setup.contacts }, (_, i) => ({ email: `s${portalId}-${i}@example.com` })));
  const pipeline = new SyncPipeline({ redisUrl: setup.redisUrl, prefix, secretKey: SECRET_KEY, connectors: new ConnectorRegistry().register('hubspot', hubspotConnectorFactory), logger: silent });
  const connection: ConnectionRecord = { id: `hubspot-${portalId}`, platform: 'hubspot', label: portalId, createdAt: new Date().toISOString(), credentials: { accessToken: token }, settings: { apiBase: setup.hubspot.url, ...PORTAL_LIMITS } };
  await pipeline.connections!.save(connection);
  await hubspotConnectorFactory(connection, { limiter: pipeline.limiters, saveCredentials: async () => undefined }).ensureSchema();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: setup.redisUrl,
    VERIFY_HUB_REDIS_PREFIX: prefix,
    HUB_SECRET_KEY: SECRET_KEY,
    ENGINE_URL: setup.engine.url,
    ENGINE_API_KEY: setup.engine.apiKey,
    LOG_LEVEL: 'warn',
    ...(setup.engineRate ? { VERIFY_HUB_ENGINE_RATE: String(setup.engineRate) } : {}),
  };
  const workers = await Promise.all(Array.from({ length: processes }, () => startWorker(env)));
  const engineCallsBefore = setup.engine.requests.length;
  try {
    const started = Date.now();
    const cpuBefore = { workers: workers.map((w) => cpuSecondsOf(w.pid!)), fakes: process.cpuUsage(), redis: await redisCpuSeconds(pipeline) };
    const { id } = await pipeline.start({ platform: 'hubspot', connectionId: connection.id, scope: 'all' });
    for (;;) {
      const run = (await pipeline.get(id))!;
      if (['completed', 'failed', 'paused', 'cancelled'].includes(run.status)) {
        const ms = Date.now() - started;
        const answered = setup.engine.requests.slice(engineCallsBefore).filter((q) => q.keyMatched);
        const span = answered.length > 1 ? answered[answered.length - 1]!.at - answered[0]!.at : ms;
        const fakes = process.cpuUsage(cpuBefore.fakes);
        const cpu = {
          workers: workers.reduce((sum, w, i) => sum + cpuSecondsOf(w.pid!) - cpuBefore.workers[i]!, 0) / (ms / 1000),
          fakes: (fakes.user + fakes.system) / 1e6 / (ms / 1000),
          redis: ((await redisCpuSeconds(pipeline)) - cpuBefore.redis) / (ms / 1000),
          machine: cpus().length,
        };
        return { processes, contacts: setup.contacts, engineRate: ((answered.length - 1) * 1000) / span, endToEndRate: (run.counters.written * 1000) / ms, status: `${run.status}, ${run.counters.written} written`, cpu };
      }
      if (Date.now() - started > 300_000) throw new Error(`run still ${run.status} after 300 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await Promise.all(workers.map(stopWorker));
    await pipeline.purge();
    await pipeline.close();
  }
}
