import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { createLogger, normalizeEmail } from '@verify-hub/core';
import { ConnectorRegistry, SyncPipeline, type RunRecord } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { until } from '../setup/until';
import { TS_CHILD_ARGS } from '../setup/ts-child';

const ROOT = join(__dirname, '..', '..');
const WORKER = join(__dirname, 'fixtures', 'crash-worker.ts');
const PORTAL = '777';
const TOKEN = 'crash-portal-token';

export interface CrashScenario {
  contacts: number;
  /** `kill -9` of a running worker process, each followed by a restart. */
  kills: number;
  workers?: number;
  /** Chunks each worker runs at once (default 2) and verifications in flight per chunk (default 5). */
  chunkConcurrency?: number;
  verifyConcurrency?: number;
  /** Latency of each engine answer (a real engine takes far longer; a kill then lands mid-verification more often). */
  engineLatencyMs?: number;
  /** Longest wait for the run to complete by itself. */
  timeoutMs?: number;
  redisUrl?: string;
  /** Something done once to the world mid-run (a Redis restart), when this share of the pages is counted. */
  midRun?: { atShare: number; action: () => Promise<void> };
  log?: (line: string) => void;
}

export interface CrashFigures {
  status: RunRecord['status'];
  statusReason?: string;
  counters: RunRecord['counters'];
  contacts: number;
  writtenOnce: number;
  lost: number;
  duplicates: number;
  /** Engine requests for addresses that are billed (a replay under an Idempotency-Key is answered, not billed). */
  engineCalls: number;
  uniqueBillable: number;
  /** Engine purchases (billed answers) beyond the first for one address. */
  boughtTwice: number;
  /** Answers the engine gave again under an Idempotency-Key: purchases a killed worker had in flight, collected by its replay. */
  replays: number;
  /**
   * Addresses the run stored a purchase of more than once (its purchase ledger, `<prefix>:run:<id>:purchases`):
   * a result kept, then bought again. Every other extra purchase is an answer billed but never stored:
   * a request in flight when its worker was killed.
   */
  storedTwice: number;
  /** Purchases the run stored (and counted in its credits). */
  storedPurchases: number;
  bill: number;
  credits: number;
  kills: number;
  restarts: number;
  wallMs: number;
}

/**
 * The address of contact `i`: mostly safe; some invalid, risky, unknown (never billed, re-checked
 * later), some malformed (rejected locally, never sent), and some that repeat the previous contact's
 * address in the same page (one purchase for both).
 */
function addressOf(i: number): string {
  if (i % 61 === 7) return `broken-${i}.example.com`;
  const j = i % 25 === 1 ? i - 1 : i;
  const kind = j % 97 === 5 ? 'unknown' : j % 13 === 3 ? 'risky' : j % 10 === 9 ? 'invalid' : 'user';
  return `${kind}.${j}@crash${j % 40}.example.com`;
}

/**
 * A HubSpot sync run through real worker processes on loopback fakes, with `kill -9`s at random
 * points of its progress and a restart after each: what it wrote, lost, bought and billed.
 */
export async function runCrashScenario(scenario: CrashScenario): Promise<CrashFigures> {
  const log = scenario.log ?? (() => undefined);
  const workerCount = scenario.workers ?? 2;
  const hubspot = new FakeHubSpot();
  hubspot.addPortal({ portalId: PORTAL, token: TOKEN, windowLimit: 1_000_000, dailyLimit: 100_000_000 });
  const ids = hubspot.addContacts(PORTAL, Array.from({ length: scenario.contacts }, (_, i) => ({ email: addressOf(i) })));
  await hubspot.start();
  const engine = new FakeEngine({ latencyMs: scenario.engineLatencyMs ?? 10 });
  await engine.start();
  const prefix = `vhcrash-${randomUUID().slice(0, 8)}`;
  const secretKey = randomBytes(32).toString('base64');
  const redisUrl = scenario.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const pipeline = new SyncPipeline({ redisUrl, prefix, secretKey, connectors: new ConnectorRegistry().register('hubspot', hubspotConnectorFactory), logger: createLogger({ level: 'silent' }) });
  const children = new Set<ChildProcess>();
  const ready = new Set<ChildProcess>();
  let restarts = 0;

  const spawnWorker = (): ChildProcess => {
    const child = spawn(process.execPath, [...TS_CHILD_ARGS, WORKER], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: redisUrl, CRASH_PREFIX: prefix, HUB_SECRET_KEY: secretKey, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey,
        CRASH_CHUNK_CONCURRENCY: String(scenario.chunkConcurrency ?? 2), CRASH_VERIFY_CONCURRENCY: String(scenario.verifyConcurrency ?? 5),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.stdout!.on('data', (d: Buffer) => {
      if (String(d).includes('crash-worker ready')) ready.add(child);
    });
    child.stderr!.on('data', (d: Buffer) => log(`worker ${child.pid}: ${String(d).trim()}`));
    child.on('exit', () => {
      children.delete(child);
      ready.delete(child);
    });
    return child;
  };

  const started = Date.now();
  try {
    await pipeline.connections!.save({
      id: `hubspot-${PORTAL}`, platform: 'hubspot', label: 'crash portal', createdAt: new Date().toISOString(),
      credentials: { accessToken: TOKEN }, settings: { apiBase: hubspot.url, requestsPerTenSeconds: 100_000 },
    });
    for (let i = 0; i < workerCount; i++) spawnWorker();
    await until(() => ready.size === workerCount, 60_000, 'the workers to start');
    const run = await pipeline.start({ platform: 'hubspot', connectionId: `hubspot-${PORTAL}`, scope: 'all' });
    const totalPages = Math.ceil(scenario.contacts / 100);
    // Kill points spread at random over the run's progress (pages counted), so kills land mid-pull, mid-verify and mid-write.
    const targets = Array.from({ length: scenario.kills }, () => Math.floor(totalPages * (0.05 + 0.85 * Math.random()))).sort((a, b) => a - b);
    let kills = 0;
    let midRunDone = !scenario.midRun;
    const deadline = started + (scenario.timeoutMs ?? 100_000);
    for (;;) {
      const current = (await pipeline.get(run.id))!;
      if (current.status !== 'running' && current.status !== 'queued') break;
      if (Date.now() > deadline) throw new Error(`run ${run.id} still ${current.status} after ${scenario.timeoutMs ?? 100_000} ms: ${JSON.stringify(current)}`);
      const progress = await pipeline.store.progress(run.id);
      if (!midRunDone && progress.pagesDone >= totalPages * scenario.midRun!.atShare) {
        midRunDone = true;
        log(`mid-run action at page ${progress.pagesDone}/${totalPages}`);
        await scenario.midRun!.action();
        continue;
      }
      if (kills < targets.length && progress.pagesDone >= targets[kills]! && ready.size > 0) {
        const victims = [...ready];
        const victim = victims[Math.floor(Math.random() * victims.length)]!;
        const exited = new Promise((resolve) => victim.once('exit', resolve));
        victim.kill('SIGKILL');
        await exited;
        kills++;
        log(`kill ${kills} at page ${progress.pagesDone}/${totalPages}`);
        spawnWorker();
        restarts++;
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!midRunDone) throw new Error('the run ended before the mid-run action');
    const wallMs = Date.now() - started;
    const done = (await pipeline.get(run.id))!;
    const stored = await pipeline.redis.smembers(pipeline.keys.purchases(run.id));
    return { ...figures(ids, hubspot, engine, scenario.contacts, done, stored), kills, restarts, wallMs };
  } finally {
    await Promise.all(
      [...children].map(async (child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await pipeline.purge().catch(() => undefined);
    await pipeline.close();
    await engine.stop();
    await hubspot.stop();
  }
}

function figures(ids: string[], hubspot: FakeHubSpot, engine: FakeEngine, contacts: number, run: RunRecord, storedPurchases: string[]): Omit<CrashFigures, 'kills' | 'restarts' | 'wallMs'> {
  const writes = ids.map((id) => hubspot.writeCounts.get(id) ?? 0);
  const billable = new Set<string>();
  for (let i = 0; i < contacts; i++) {
    const n = normalizeEmail(addressOf(i));
    if (n.ok && !n.normalized.startsWith('unknown.')) billable.add(n.normalized);
  }
  let engineCalls = 0;
  for (const r of engine.requests) if (r.keyMatched && r.email && billable.has(r.email)) engineCalls++;
  const billedTwice = [...engine.billedPer.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  const storedPer = new Map<string, number>();
  for (const purchase of storedPurchases) {
    const address = purchase.slice(0, purchase.lastIndexOf('|'));
    storedPer.set(address, (storedPer.get(address) ?? 0) + 1);
  }
  return {
    status: run.status,
    statusReason: run.statusReason,
    counters: run.counters,
    contacts,
    writtenOnce: writes.filter((n) => n === 1).length,
    lost: writes.filter((n) => n === 0).length,
    duplicates: writes.filter((n) => n > 1).length,
    engineCalls,
    uniqueBillable: billable.size,
    boughtTwice: billedTwice,
    replays: engine.replays,
    storedTwice: [...storedPer.values()].filter((n) => n > 1).length,
    storedPurchases: storedPurchases.length,
    bill: engine.billed,
    credits: run.counters.credits ?? 0,
  };
}
