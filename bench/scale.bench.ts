/**
 * `npm run bench scale` (issue 22, acceptance), loopback only, in one run:
 *  1. a HubSpot sync (fake HubSpot, fake engine answering in ENGINE_LATENCY_MS with no limit) worked by
 *     1, 2 and 4 `verify-hub worker` processes of the built CLI: throughput per count, ratio to 1;
 *     then 4 processes with the engine's limit R bound on both sides: rate / R;
 *  2. the same sync with 2 processes on a local 3-master Redis Cluster vs the single Redis;
 *  3. webhook ack p50/p99 at 3,000 events/s vs the /healthz-like baseline (bench/webhooks.bench.ts --ack-only);
 *  4. peak RSS of the 1,000,000-contact sync (bench/sync.bench.ts --memory-only, no heap flags) and of
 *     `verify-hub serve` cleaning a 50,000-row file from the dashboard's API.
 * Builds the CLI first when cli/dist is missing, and removes what it built at the end.
 * SCALE_BENCH_ONLY=memory runs part 4 alone (the other parts load the machine for minutes); =clean or
 * =sync runs one half of it; =workers runs part 1 alone. SCALE_BENCH_PROMOTED=<file> also lists where
 * the dashboard clean's promoted bytes were allocated (it slows that run: read the list, not its peak).
 *
 * Memory (issue 22 item 5; one loaded 2-core machine with 24 GB; figures vary by 30-80 MB run to run):
 *  - 50,000-row clean from the dashboard: peak RSS 474-491 MB (first measured) -> 397-426 MB (engine
 *    timeouts let go, postman converter and exceljs styles) -> 209-278 MB (the engine client on Node's
 *    HTTP client instead of the global fetch; lazy loading: serve starts at ~97-100 MB) -> 216-300 MB,
 *    most runs 240-270 (contacts carry no copy of their row's cells; CSV records written without
 *    csv-stringify; engine answers read without a safeParse per field). `verify-hub clean --split` of the
 *    same file: 222-347 MB -> 210-262 MB, most runs 218-235 (also: the in-memory cache keeps only the
 *    addresses the file repeats, so 50,000 results no longer live to the end: live heap 66 -> 38 MB)
 *    -> 210-223 MB (clean no longer loads BullMQ: @verify-hub/sync-jobs/in-process).
 *    Then (2026-11-27) both -> dashboard 204-264 MB, clean --split 175-196 MB, preview 132-134 MB (was
 *    151-160): CSV positions read from csv-parse's own counters instead of its per-record `info`
 *    snapshots, no AbortSignal per engine call, CSV rows gathered as bytes, normalizeEmail without
 *    splits. Promoted over the dashboard clean: ~420 -> ~230 MB.
 *  - 1,000,000-contact sync (in-process executor, built packages, plain node): 180-186 MB; the old
 *    figure (263-302 MB) was measured under ts-node, whose compiler held ~110 MB.
 *  What is left is V8's heap growing rule, seen with --trace-gc-verbose: after each full GC the old
 *  generation may grow to live x factor, and the factor is 4 (the most) while the GC's marking speed is
 *  under ~43 times the rate at which the old generation fills (here 450-1,300 KB/ms against 14-19 KB/ms
 *  of promotions and large objects). Live heap is 35-50 MB after a full GC, flat over the run, but the
 *  limit reaches 140-215 MB; startup and the upload's preview fill the old generation fastest, and set
 *  the first high limits. MALLOC_ARENA_MAX=2 and turning off allocation-site pretenuring made no
 *  difference; reading the CSV 1 KiB ahead instead of 8 changed nothing measurable.
 *  What is promoted (the sampling heap profiler keeping only objects that outlive a young-generation GC):
 *  ~400 MB over the dashboard clean on Node 20, a quarter of it csv-parse's per-record `info` objects
 *  (built by object spread, which V8 11 on Node 20 allocates slowly and as if long-lived: a bare parse
 *  of the file with `info` promotes ~8 MB and takes twice as long as without) and ~35 MB AbortSignals
 *  (Node 20 promotes every new AbortSignal). Neither happens on Node 24. Both are gone now (above).
 *  What is left is promoted because the hub is CPU-bound: an engine call or a page's results live for
 *  tens of milliseconds, long enough to see two young-generation GCs.
 *  V8 sizes the heap from the memory the process may use: with the hub in a memory cgroup of
 *  deploy/compose.yaml's 1 GB (part 4's last line), the same clean peaks at 142-156 MB (Node 20; 512 MB:
 *  142 MB), about 25 % slower. Node 24 (the image's) on this host: 370-423 MB before the changes above,
 *  342 MB after (clean --split 312), its young generation alone growing to 134 MB; in 1 GB, 202-227 ->
 *  190 MB; in 512 MB, 187-193 MB (SCALE_BENCH_NODE=<node 24>).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FakeEngine } from '../test/fakes/engine';
import { FakeHubSpot } from '../test/fakes/hubspot/fake-hubspot';
import { ensureRedis } from '../test/setup/redis';
import { haveRedisBinaries, startRedisCluster } from '../test/setup/redis-cluster';
import { ensureBuilt, removeBuild } from './built/build';
import { runBuilt } from './built/run-built';
import { BENCH_NODE_ARGS } from './node-args';
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { cleanFromDashboard, cleanWithCli, measuredNode } from './scale/file-clean-memory';
import { createMemoryGroup } from './scale/memory-group';
import { promotedSites } from './scale/promoted-report';
import { syncWithWorkers, type ScaleRun, type ScaleSetup } from './scale/worker-processes';

const CONTACTS = Number(process.env.SCALE_BENCH_CONTACTS ?? 4_000);
const ENGINE_LATENCY_MS = Number(process.env.SCALE_BENCH_ENGINE_LATENCY_MS ?? 100);
const ENGINE_R = 300;
/** This session's ports: the hub of the file clean, and the cluster nodes (their bus ports are +10000). */
const SERVE_PORT = 42510;
const CLUSTER_FIRST_PORT = 42550;
const ONLY = process.env.SCALE_BENCH_ONLY as 'memory' | 'clean' | 'sync' | 'workers' | undefined;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

const describe = (r: ScaleRun) => `${r.engineRate.toFixed(0).padStart(5)} verifications/s (end to end ${r.endToEndRate.toFixed(0)} contacts/s; ${r.status})`;
/** Where the machine's cores went: when their sum nears the core count, CPU (not the workers' count) is the limit. */
const cpuLine = (r: ScaleRun) =>
  `      cores busy: workers ${r.cpu.workers.toFixed(2)}, fakes + bench ${r.cpu.fakes.toFixed(2)}, Redis ${r.cpu.redis.toFixed(2)}; sum ${(r.cpu.workers + r.cpu.fakes + r.cpu.redis).toFixed(2)} of ${r.cpu.machine}`;

async function workerScaling(setup: ScaleSetup): Promise<ScaleRun> {
  console.log(`\n1. ${CONTACTS.toLocaleString('en')}-contact HubSpot sync by N worker processes (built CLI, 4 chunks x 10 verifications each); engine ${ENGINE_LATENCY_MS} ms, no limit`);
  const runs: ScaleRun[] = [];
  for (const n of [1, 2, 4]) {
    const run = await syncWithWorkers(setup, n);
    runs.push(run);
    console.log(`   ${n} process${n > 1 ? 'es' : '  '}: ${describe(run)}  ratio to 1: ${(run.engineRate / runs[0]!.engineRate).toFixed(2)}x`);
    console.log(cpuLine(run));
  }
  const limitedEngine = new FakeEngine({ latencyMs: ENGINE_LATENCY_MS, ratePerSecond: ENGINE_R });
  await limitedEngine.start();
  try {
    const bound = await syncWithWorkers({ ...setup, engine: limitedEngine, engineRate: ENGINE_R }, 4);
    const refused = limitedEngine.requests.filter((q) => q.keyMatched).length - CONTACTS;
    console.log(`   4 processes, engine limit R = ${ENGINE_R}/s (VERIFY_HUB_ENGINE_RATE=${ENGINE_R}): ${describe(bound)}  rate / R = ${(bound.engineRate / ENGINE_R).toFixed(3)}; ${refused} answered 429`);
    console.log(cpuLine(bound));
  } finally {
    await limitedEngine.stop();
  }
  return runs[1]!;
}

async function clusterVersusSingle(setup: ScaleSetup, single: ScaleRun): Promise<void> {
  console.log('\n2. the same sync with 2 worker processes on a local 3-master Redis Cluster (no replicas) vs the single Redis');
  if (!haveRedisBinaries()) return void console.log('   skipped: redis-server / redis-cli not installed');
  const cluster = await startRedisCluster(3, 0, CLUSTER_FIRST_PORT);
  try {
    const run = await syncWithWorkers({ ...setup, redisUrl: cluster.url }, 2);
    console.log(`   single Redis: ${describe(single)}`);
    console.log(`   cluster:      ${describe(run)}  ratio cluster / single: ${(run.engineRate / single.engineRate).toFixed(2)}x`);
  } finally {
    cluster.stop();
  }
}

function webhookAcks(): void {
  console.log('\n3. webhook acks at 3,000 events/s (bench/webhooks.bench.ts --ack-only, hub in its own process; forwarder thread, HTTP event loop, third process)');
  const run = spawnSync(process.execPath, [...BENCH_NODE_ARGS, join(__dirname, 'webhooks.bench.ts'), '--ack-only'], { encoding: 'utf8', env: { ...process.env, WEBHOOK_BENCH_SECONDS: process.env.WEBHOOK_BENCH_SECONDS ?? '10' }, timeout: 300_000 });
  for (const line of `${run.stdout}${run.stderr}`.trim().split('\n')) console.log(`   ${line}`);
}

/** The memory limit deploy/compose.yaml gives the `hub` service (`1G`, `768M`), in bytes. */
function composeHubMemoryLimit(): number {
  const compose = parseYaml(readFileSync(join(__dirname, '..', 'deploy', 'compose.yaml'), 'utf8')) as { services: Record<string, { deploy?: { resources?: { limits?: { memory?: string } } } }> };
  const text = compose.services.hub?.deploy?.resources?.limits?.memory ?? '';
  const match = /^(\d+)([KMG])$/i.exec(text);
  if (!match) throw new Error(`deploy/compose.yaml: services.hub.deploy.resources.limits.memory is "${text}", not a size like 1G`);
  return Number(match[1]) * 1024 ** ('KMG'.indexOf(match[2]!.toUpperCase()) + 1);
}

async function memory(redisUrl: string): Promise<void> {
  const nodeVersion = spawnSync(measuredNode(), ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(`\n4. memory, no heap flags (measured processes on Node ${nodeVersion}; SCALE_BENCH_NODE picks another)`);
  if (ONLY !== 'clean') {
    const sync = await runBuilt(join(__dirname, 'scale', 'sync-memory.ts'));
    console.log(`   1,000,000-contact sync (in-process executor and fake engine, built packages, plain node): peak RSS ${mb(sync.peakRss)} (goal < 200 MB)${sync.status === 0 ? '' : ` exit ${sync.status}`}`);
    console.log(`      ${sync.output.trim()}`);
  }
  if (ONLY === 'sync') return;
  const engine = new FakeEngine({ latencyMs: 5 });
  await engine.start();
  try {
    const promotedFile = process.env.SCALE_BENCH_PROMOTED;
    const clean = await cleanFromDashboard(redisUrl, engine, SERVE_PORT, 50_000, { promotedTo: promotedFile });
    console.log(`   50,000-row clean from the dashboard API (verify-hub serve, built, own process): done in ${clean.seconds.toFixed(1)} s, peak RSS ${mb(clean.peakRss)} (goal < 200 MB); RSS when started ${mb(clean.startedRss)}, peak after the upload's preview ${mb(clean.previewPeakRss)}`);
    if (promotedFile) {
      // The sampler slows the hub and its figures above: a run to read this list, not the peak.
      const { total, sites } = promotedSites(promotedFile);
      console.log(`      what outlived a young-generation GC (sampled, ${promotedFile}): ${mb(total)} in all; largest sites:`);
      for (const { site, bytes } of sites) console.log(`      ${mb(bytes).padStart(7)}  ${site}`);
    }
    const cli = await cleanWithCli(engine, 50_000);
    console.log(`   the same file with verify-hub clean --split (built CLI, own process, no hub): done in ${cli.seconds.toFixed(1)} s, peak RSS ${mb(cli.peakRss)} (goal < 200 MB)`);
    const limit = composeHubMemoryLimit();
    const group = createMemoryGroup(limit, `verify-hub-bench-${process.pid}`);
    if ('unavailable' in group) console.log(`   the dashboard clean in a ${mb(limit)} memory cgroup (deploy/compose.yaml's hub limit): skipped, ${group.unavailable}`);
    else {
      try {
        const limited = await cleanFromDashboard(redisUrl, engine, SERVE_PORT, 50_000, { group });
        console.log(`   the dashboard clean with the hub in a ${mb(limit)} memory cgroup (deploy/compose.yaml's hub limit; V8 sizes its heap from it): done in ${limited.seconds.toFixed(1)} s, peak RSS ${mb(limited.peakRss)}; started at ${mb(limited.startedRss)}`);
      } finally {
        group.remove();
      }
    }
  } finally {
    await engine.stop();
  }
}

async function main(): Promise<void> {
  const built = ensureBuilt();
  const redis = await ensureRedis();
  const engine = new FakeEngine({ latencyMs: ENGINE_LATENCY_MS });
  const hubspot = new FakeHubSpot();
  await engine.start();
  await hubspot.start();
  try {
    if (!ONLY || ONLY === 'workers') {
      const setup: ScaleSetup = { redisUrl: redis.url, engine, hubspot, contacts: CONTACTS };
      const twoProcesses = await workerScaling(setup);
      if (ONLY === 'workers') return;
      await clusterVersusSingle(setup, twoProcesses);
      webhookAcks();
    }
    await memory(redis.url);
  } finally {
    await hubspot.stop();
    await engine.stop();
    redis.stop();
    if (built) removeBuild();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
