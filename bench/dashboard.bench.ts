/**
 * The dashboard's work on the hub (`verify-hub serve` wired from configuration: the real pipeline on
 * Redis, the fake engine over HTTP answering in 5 ms), on loopback only. Each figure is printed with
 * a baseline measured in the same run:
 *
 * 1. Preview with credit estimate of a 50,000-row CSV (`POST /api/files/preview`: upload, inspect,
 *    every address normalised and looked up in the Redis cache) against the least the estimate needs:
 *    the file connector inspecting and reading the same file in this process.
 * 2. Cleaning that file from the dashboard (`POST /api/files/:id/start`, then polled as the page does
 *    until 100 %) against `verify-hub clean`'s in-process run of the same file with the same engine
 *    and concurrency.
 * 3. The runs list the page polls every second (`GET /api/runs?limit=50`, 50 runs stored) against
 *    `GET /healthz` (one Redis PING), as requests per second.
 * 4. The dashboard bundle: bytes, gzipped bytes and esbuild time.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { EngineClient, InMemoryVerificationCache, createLogger, loadConfig } from '@verify-hub/core';
import { FileConnector } from '@verify-hub/connector-file';
import { runInProcess } from '@verify-hub/sync-jobs';
import { startServe } from '../cli/src/commands/serve';
import { bundleDashboard } from '../webhooks-in/src/dashboard-bundle';
import { FakeEngine } from '../test/fakes/engine';
import { ensureRedis } from '../test/setup/redis';
import { purgeServeRedis } from '../test/webhooks-in/serve-stack';

const ROWS = 50_000;
const ENGINE_CONCURRENCY = 20;
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const silent = createLogger({ level: 'silent' });

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

function listCsv(): string {
  const lines = ['first_name,last_name,email,company'];
  for (let i = 0; i < ROWS; i++) {
    // A few repeats and a mix of outcomes, like a real export.
    const n = i % 50 === 49 ? i - 1 : i;
    const local = n % 10 === 0 ? `invalid.person${n}` : n % 7 === 0 ? `risky.person${n}` : `person${n}`;
    lines.push(`First${i},Last${i},${local}@example${n % 97}.com,Company ${i % 300}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const redis = await ensureRedis();
  const engine = new FakeEngine({ latencyMs: 5 });
  await engine.start();
  const work = mkdtempSync(join(tmpdir(), 'vh-bench-dashboard-'));
  const prefix = `bench-dashboard-${randomUUID().slice(0, 8)}`;
  const csvPath = join(work, 'contacts.csv');
  writeFileSync(csvPath, listCsv());
  const csv = readFileSync(csvPath);
  console.log(`list: ${ROWS.toLocaleString('en')} rows, ${mb(csv.length)}; engine: fake over HTTP, 5 ms per address, concurrency ${ENGINE_CONCURRENCY}`);

  const config = loadConfig({
    REDIS_URL: redis.url,
    ENGINE_URL: engine.url,
    ENGINE_API_KEY: engine.apiKey,
    ENGINE_CONCURRENCY: String(ENGINE_CONCURRENCY),
    HUB_ADMIN_TOKEN: ADMIN_TOKEN,
    HUB_SECRET_KEY: 'b'.repeat(40),
    HUB_UPLOAD_DIR: join(work, 'uploads'),
    LOG_LEVEL: 'silent',
    VERIFY_HUB_REDIS_PREFIX: prefix,
  });
  const hub = await startServe(config, { port: 0, host: '127.0.0.1', logger: silent });
  const api = (path: string, init: RequestInit = {}) => fetch(`${hub.url}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers ?? {}) } });
  console.log(`RSS with the hub, pipeline and workers started (nothing done yet): ${mb(process.memoryUsage().rss)}`);
  try {
    // 1. Preview and estimate.
    const baselineRead = await timed(async () => {
      const connector = new FileConnector({ input: csvPath, dryRun: true });
      await connector.inspect();
      let contacts = 0;
      let cursor: string | undefined;
      do {
        const page = await connector.pull({ kind: 'file' }, cursor);
        contacts += page.contacts.length;
        cursor = page.next;
      } while (cursor !== undefined);
      return contacts;
    });
    const baselinePeak = process.resourceUsage().maxRSS * 1024;
    const preview = await timed(async () => {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
      const res = await api('/api/files/preview', { method: 'POST', body: form });
      if (res.status !== 201) throw new Error(`preview answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { upload: { id: string; rows: number }; estimate: { unique: number; estimatedCredits: number } };
    });
    console.log('\n1. preview with credit estimate');
    console.log(`   hub (upload, inspect, estimate with cache lookups): ${seconds(preview.ms)}  (${preview.value.upload.rows} rows, ${preview.value.estimate.unique} unique, ${preview.value.estimate.estimatedCredits} credits)`);
    console.log(`   baseline (file connector reads the file in-process): ${seconds(baselineRead.ms)}  (${baselineRead.value} contacts)`);
    console.log(`   ratio hub/baseline: ${ratio(preview.ms, baselineRead.ms)}`);
    console.log(`   peak RSS after the baseline read: ${mb(baselinePeak)}; after the preview: ${mb(process.resourceUsage().maxRSS * 1024)}`);

    // 2. Clean from the dashboard, polled like the run page, against the CLI's in-process run.
    const uploadId = preview.value.upload.id;
    const dashboard = await timed(async () => {
      const started = await api(`/api/files/${uploadId}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      if (started.status !== 202) throw new Error(`start answered ${started.status}: ${await started.text()}`);
      const { run } = (await started.json()) as { run: { id: string } };
      let polls = 0;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        polls++;
        const view = (await (await api(`/api/runs/${run.id}`)).json()) as { status: string; progress: { percent: number } };
        if (view.status === 'completed') return { polls };
        if (view.status === 'failed' || view.status === 'cancelled') throw new Error(`run ${run.id} ${view.status}`);
      }
    });
    const dashboardPeak = process.resourceUsage().maxRSS * 1024;
    global.gc?.();
    const retained = process.memoryUsage();
    const cli = await timed(() =>
      runInProcess({
        connector: new FileConnector({ input: csvPath, output: join(work, 'cli.cleaned.csv'), removedOutput: join(work, 'cli.removed.csv'), summaryOutput: join(work, 'cli.summary.json') }),
        scope: { kind: 'file' },
        verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }),
        cache: new InMemoryVerificationCache({ freshnessDays: 30 }),
        verifyConcurrency: ENGINE_CONCURRENCY,
      }),
    );
    console.log('\n2. cleaning the file');
    console.log(`   dashboard (start, pipeline on Redis, polled every 250 ms to 100 %): ${seconds(dashboard.ms)}`);
    console.log(`   baseline (verify-hub clean in-process, same engine and concurrency): ${seconds(cli.ms)}`);
    console.log(`   ratio dashboard/baseline: ${ratio(dashboard.ms, cli.ms)}`);
    console.log(`   peak RSS after the dashboard's run: ${mb(dashboardPeak)} (after a GC: heap ${mb(retained.heapUsed)}, RSS ${mb(retained.rss)}); after the in-process run: ${mb(process.resourceUsage().maxRSS * 1024)}`);

    // 3. The runs list under polling.
    for (let i = 0; i < 49; i++) {
      const form = new FormData();
      form.append('file', new Blob([`email\nsmall${i}.a@example.com\nsmall${i}.b@example.com\n`], { type: 'text/csv' }), `small-${i}.csv`);
      const res = await api('/api/files', { method: 'POST', body: form });
      if (res.status !== 202) throw new Error(`upload answered ${res.status}`);
    }
    const listed = ((await (await api('/api/runs?limit=50')).json()) as { runs: unknown[] }).runs.length;
    const load = (path: string) =>
      autocannon({ url: `${hub.url}${path}`, connections: 10, duration: 3, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const health = await load('/healthz');
    const runs = await load('/api/runs?limit=50');
    console.log(`\n3. the runs list (${listed} runs per answer), 10 connections for 3 s`);
    console.log(`   GET /api/runs?limit=50: ${Math.round(runs.requests.average)} req/s, p99 ${runs.latency.p99} ms, ${runs.non2xx} non-2xx`);
    console.log(`   baseline GET /healthz:  ${Math.round(health.requests.average)} req/s, p99 ${health.latency.p99} ms`);
    console.log(`   ratio runs/healthz (req/s): ${(runs.requests.average / health.requests.average).toFixed(2)}; one open page polls once a second`);
  } finally {
    await hub.close();
    await purgeServeRedis(prefix, redis.url);
    await engine.stop();
    redis.stop();
    rmSync(work, { recursive: true, force: true });
  }

  // 4. The bundle.
  const bundled = await timed(() => bundleDashboard());
  console.log('\n4. dashboard bundle (esbuild, minified)');
  for (const [name, body] of Object.entries(bundled.value)) console.log(`   ${name.padEnd(12)} ${String(body.length).padStart(6)} bytes, ${String(gzipSync(body).length).padStart(6)} gzipped`);
  console.log(`   bundled in ${Math.round(bundled.ms)} ms`);
  console.log(`\npeak RSS of this process (hub, pipeline and workers included): ${mb(process.resourceUsage().maxRSS * 1024)}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
