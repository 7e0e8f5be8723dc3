import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { FILE_LIMITS, FileConnector, resolveOptions } from '@verify-hub/connector-file';
import { openSource } from '../../connectors/file/src/layout';
import { FakeEngine } from '../fakes/engine';
import { purgeServeRedis, serveProcess } from '../webhooks-in/serve-stack';
import { writeXlsxBomb } from './xlsx-bomb';

/**
 * Issue 37's upload attacks, replayed against `verify-hub serve` as a process of its own (so its
 * memory is its own): a 205 KB .xlsx whose shared strings expand to 200 MB took 12-17 s, raised the
 * hub from 139 MB to 1.64 GB and answered a 209 MB preview; a declared Content-Length of 50 MB got
 * no answer for 10 s. Now the bomb is refused before parsing (400 naming the limit, nothing kept,
 * the hub's peak memory less than 150 MB above its memory before) and the oversized declaration at once (413, body unread).
 */
const ADMIN = `admin-${randomUUID()}`;
const MB = 1024 * 1024;
let engine: FakeEngine;
let hub: { url: string; child: ChildProcess; exited: Promise<unknown> };
let uploadDir: string;
let work: string;
let prefix: string;

/** The hub process's resident memory now and at its peak (Linux /proc), in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

beforeAll(async () => {
  engine = new FakeEngine();
  await engine.start();
  uploadDir = mkdtempSync(join(tmpdir(), 'vh-sec-uploads-'));
  work = mkdtempSync(join(tmpdir(), 'vh-sec-bomb-'));
  prefix = `test-sec-uploads-${randomUUID().slice(0, 8)}`;
  hub = await serveProcess({
    REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_ADMIN_TOKEN: ADMIN, HUB_SECRET_KEY: 's'.repeat(40),
    HUB_UPLOAD_DIR: uploadDir, VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent', VERIFY_HUB_FROM_SOURCE: '1',
  });
}, 180_000);

afterAll(async () => {
  hub?.child.kill('SIGTERM');
  await hub?.exited;
  await purgeServeRedis(prefix);
  await engine.stop();
  rmSync(uploadDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

async function upload(path: string, name: string, route = '/api/files/preview') {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(path)]), name);
  const res = await fetch(`${hub.url}${route}`, { method: 'POST', body: form, headers: { authorization: `Bearer ${ADMIN}` } });
  return { status: res.status, body: (await res.json()) as { error?: string; field?: string; code?: string } };
}

describe('an .xlsx zip bomb', () => {
  it('is refused before parsing with a 400 naming the limit; nothing kept, nothing started, the hub grows by less than 150 MB', async () => {
    const bomb = join(work, 'bomb.xlsx');
    await writeXlsxBomb(bomb, 200 * MB);
    expect(statSync(bomb).size).toBeLessThan(260 * 1024);
    const before = memory(hub.child.pid!);
    const started = Date.now();
    const preview = await upload(bomb, 'contacts.xlsx');
    const oneShot = await upload(bomb, 'contacts.xlsx', '/api/files');
    const took = Date.now() - started;
    const after = memory(hub.child.pid!);
    for (const res of [preview, oneShot]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'file', code: 'FILE_LIMIT' });
      expect(res.body.error).toMatch(/expands to more than 100 MB, the limit/);
    }
    // Growth, not an absolute: the hub runs from source here, and compiling seven platforms' sources at
    // start peaks above 300 MB by itself (313 MB measured before any upload); the bomb, unrefused, took 1.5 GB more.
    expect(after.peak - before.rss).toBeLessThan(150);
    expect(took).toBeLessThan(10_000);
    // Figures for the issue: the hub's resident memory before and after, its peak, and the time both answers took.
    process.stdout.write(`xlsx bomb: rss ${before.rss.toFixed(0)} -> ${after.rss.toFixed(0)} MB, peak ${after.peak.toFixed(0)} MB, two refusals in ${took} ms\n`);
    expect(readdirSync(uploadDir)).toEqual([]);
    const runs = await fetch(`${hub.url}/api/runs`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(((await runs.json()) as { runs: unknown[] }).runs).toEqual([]);
    expect(engine.requests).toHaveLength(0);
  }, 120_000);
});

describe('a declared Content-Length over the limit', () => {
  // Uploads may be 64 MB (HUB_UPLOAD_MAX_BYTES' default) plus the form; JSON and webhook bodies 1 MB.
  it.each([
    ['/api/files/preview', 'multipart/form-data; boundary=x', 65 * MB],
    ['/api/runs', 'application/json', 50 * MB],
    ['/webhooks/hubspot', 'application/json', 50 * MB],
  ])('%s answers 413 at once, without reading the body', async (path, type, declared) => {
    const { port, hostname } = new URL(hub.url);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: ${type}\r\nContent-Length: ${declared}\r\n\r\n`);
      socket.write('x'.repeat(1024));
      // The rest of the declared body is never sent: an answer can only come from the declared length.
    });
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/over the limit of \d+ bytes/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('cells and previews are bounded, in CSV as in .xlsx', () => {
  it('cuts a cell at the documented length and shortens it in the preview; no row is lost', async () => {
    const csv = join(work, 'long.csv');
    writeFileSync(csv, `email,note\nann@example.com,${'n'.repeat(FILE_LIMITS.cellChars + 5000)}\nbob@example.com,${'h'.repeat(MB)}\ncid@example.com,short\n`);
    const connector = new FileConnector({ input: csv });
    const inspection = await connector.inspect();
    expect(inspection.rowCount).toBe(3);
    expect(inspection.sample.map((row) => [row.email, row.note!.length])).toEqual([['ann@example.com', FILE_LIMITS.previewChars], ['bob@example.com', FILE_LIMITS.previewChars], ['cid@example.com', 5]]);
    expect(inspection.sample[0]!.note!.endsWith('…')).toBe(true);
    const cells: unknown[][] = [];
    for await (const item of openSource(resolveOptions({ input: csv }), { delimiter: ',' })) if (item.kind === 'record') cells.push(item.cells);
    expect(cells.map((row) => String(row[1]).length)).toEqual([4, FILE_LIMITS.cellChars, FILE_LIMITS.cellChars, 5]);
  });
});
