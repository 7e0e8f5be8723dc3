import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import type { RunningHub } from '../../cli/src/commands/serve';
import type { FakeEngine } from '../fakes/engine';
import { BROKEN_FILE_ROWS, brokenFileText, rowOf } from '../file/broken-file';
import { startServeStack, until, type ServeStack } from './serve-stack';

const TOKEN = 'serve-files-admin-token-0123456789';
const RETENTION_DAYS = 7;

/** File runs through the dashboard's upload routes, the real pipeline and workers on the test Redis, the fake engine over HTTP. */
describe('file runs through verify-hub serve', () => {
  let stack: ServeStack;
  let engine: FakeEngine;
  let hub: RunningHub;
  let uploadDir: string;
  const auth = { Authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    stack = await startServeStack('serve-files', TOKEN, { VERIFY_HUB_RETENTION_DAYS: String(RETENTION_DAYS) });
    ({ engine, hub, uploadDir } = stack);
  });
  afterAll(() => stack?.close());

  const api = () => request(hub.url);
  const getRun = async (id: string) => (await api().get(`/api/runs/${id}`).set(auth)).body;
  const settled = (id: string, timeoutMs = 150_000) => until(() => getRun(id), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), timeoutMs);
  const download = async (runId: string, kind: string) => {
    const res = await api().get(`/api/runs/${runId}/files/${kind}`).set(auth).buffer(true);
    expect([kind, res.status]).toEqual([kind, 200]);
    return res.text;
  };
  const csvRows = (text: string) => parse(text, { bom: true, relax_column_count: true }) as string[][];
  /** The dashboard's two steps: preview (upload), then start. */
  const upload = async (text: string, name: string, start: Record<string, unknown> = {}) => {
    const preview = await api().post('/api/files/preview').set(auth).attach('file', Buffer.from(text), name);
    expect(preview.status).toBe(201);
    const started = await api().post(`/api/files/${preview.body.upload.id}/start`).set(auth).send(start);
    expect(started.status).toBe(202);
    return started.body as { run: { id: string }; links: Record<string, string>; upload: { id: string } };
  };

  it('a 5,000-row upload with an unclosed quote in row 4,990, a NUL and a wide row: every row in exactly one download, right lines, counted on the run', async () => {
    const { run } = await upload(brokenFileText(), 'broken list.csv');
    const done = await settled(run.id);
    expect(done).toMatchObject({ status: 'completed', counters: { unreadable: 2, pulled: BROKEN_FILE_ROWS - 2 }, scope: 'file:broken_list.csv' });

    const seen = new Map<number, string[]>();
    const note = (row: number, where: string) => seen.set(row, [...(seen.get(row) ?? []), where]);
    for (const kind of ['cleaned', 'removed']) for (const r of csvRows(await download(run.id, kind)).slice(1)) note(rowOf(r[1]!), kind);
    const rejected = csvRows(await download(run.id, 'rejected'));
    expect(rejected[0]).toEqual(['line', 'reason', 'record']);
    for (const [line, , record] of rejected.slice(1)) {
      const row = Number(/p(\d+)@/.exec(record!)?.[1]);
      expect(Number(line)).toBe(row + 1);
      note(row, 'rejected');
    }
    for (let r = 1; r <= BROKEN_FILE_ROWS; r++) expect([r, seen.get(r)]).toEqual([r, [expect.any(String)]]);
    expect(seen.size).toBe(BROKEN_FILE_ROWS);
    expect(rejected.slice(1).map(([line]) => line)).toEqual(['201', '4991']);
    // The NUL row never reached the engine; the summary says how many rows could not be read, without a server path.
    expect(engine.requests.some((q) => q.email?.includes('\u0000'))).toBe(false);
    const summaryText = await download(run.id, 'summary');
    expect(summaryText).not.toContain(uploadDir);
    expect(JSON.parse(summaryText)).toMatchObject({ input: 'broken_list.csv', rejectedOutput: 'broken_list.rejected_rows.csv', rejected: 2, skipped: { unparseable: 2 } });
    expect(JSON.stringify(await getRun(run.id))).not.toContain(uploadDir);
  }, 180_000);

  it('stops at the credit limit given, paused and saying so; resuming with a higher limit buys the rest, nothing twice', async () => {
    // The first 1,200 addresses come back unknown (free): the limit must still be spent on the rest.
    const lines = ['email', ...Array.from({ length: 1200 }, (_, i) => `unknown.${i}@example.com`), ...Array.from({ length: 1300 }, (_, i) => `paid${i}@example.com`)];
    const billedBefore = engine.billed;
    const { run } = await upload(`${lines.join('\n')}\n`, 'capped.csv', { maxCredits: 500 });
    const paused = await settled(run.id);
    expect(paused.status).toBe('paused');
    expect(paused.statusReason).toMatch(/^stopped at the credit limit of 500 \(500 credits spent\)/);
    expect(paused.counters.credits).toBe(500);
    expect(engine.billed - billedBefore).toBe(500);
    expect((await api().get(`/api/runs/${run.id}/files/cleaned`).set(auth)).status).toBe(409);

    const badLimit = await api().post(`/api/runs/${run.id}/resume`).set(auth).send({ maxCredits: -1 });
    expect([badLimit.status, badLimit.body.field]).toEqual([400, 'body.maxCredits']);
    const resumed = await api().post(`/api/runs/${run.id}/resume`).set(auth).send({ maxCredits: 5000 });
    expect(resumed.status).toBe(200);
    expect(resumed.body.options.maxCredits).toBe(5000);
    const done = await settled(run.id);
    expect(done).toMatchObject({ status: 'completed', counters: { credits: 1300, pulled: 2500 } });
    expect(engine.billed - billedBefore).toBe(1300);
    const cleaned = csvRows(await download(run.id, 'cleaned'));
    const risk = cleaned[0]!.indexOf('ev_risk');
    expect(cleaned.slice(1).filter((r) => r[0]!.startsWith('paid')).every((r) => r[risk] === 'safe')).toBe(true);
  }, 180_000);

  it('re-checks the unknowns of a file run into new files, leaving the first ones as they were', async () => {
    engine.script('unknown.later@example.com', { kind: 'result', risk: 'unknown' }, { kind: 'result', risk: 'safe' });
    const { run, upload: up } = await upload('email,name\nunknown.later@example.com,Later\nada@example.com,Ada\n', 'recheck.csv');
    expect((await settled(run.id)).status).toBe('completed');
    const first = await download(run.id, 'cleaned');
    expect(first).toMatch(/unknown\.later@example\.com,Later,unknown/);

    const recheck = await api().post(`/api/runs/${run.id}/recheck-unknowns`).set(auth);
    expect(recheck.status).toBe(201);
    expect(recheck.body).toMatchObject({ platform: 'file', scope: `recheck:${run.id}` });
    const again = await settled(recheck.body.id);
    expect(again.status).toBe('completed');
    expect(await download(again.id, 'cleaned')).toMatch(/unknown\.later@example\.com,Later,safe/);
    // The first run's files are untouched, and the re-check's are new files beside them.
    expect(await download(run.id, 'cleaned')).toBe(first);
    const files = readdirSync(join(uploadDir, up.id));
    expect(files).toEqual(expect.arrayContaining(['recheck.cleaned.csv', `recheck.cleaned.recheck-${again.id}.csv`, `recheck.summary.recheck-${again.id}.json`]));
    expect(readFileSync(join(uploadDir, up.id, 'recheck.cleaned.csv'), 'utf8')).toBe(first);
  }, 60_000);

  it('run records and their per-record reports expire after VERIFY_HUB_RETENTION_DAYS', async () => {
    const { run } = await upload('email\nada@example.com\n', 'ttl.csv');
    await settled(run.id);
    const { redis, keys } = hub.pipeline;
    const day = 86_400_000;
    for (const key of [keys.run(run.id), keys.report(run.id), keys.breakdown(run.id), keys.pagesDone(run.id)]) {
      const ttl = await redis.pttl(key);
      expect([key, ttl > (RETENTION_DAYS - 1) * day && ttl <= RETENTION_DAYS * day]).toEqual([key, true]);
    }
  });

  it('answers 400 naming the field to a malformed multipart body and to a scope the connector cannot read', async () => {
    const broken = await api().post('/api/files/preview').set(auth).set('Content-Type', 'multipart/form-data; boundary=XYZ').send('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\r\na@example.com');
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'INVALID_INPUT', field: 'file' });
    const oneShot = await api().post('/api/files').set(auth).set('Content-Type', 'multipart/form-data; boundary=XYZ').send('garbage');
    expect(oneShot.status).toBe(400);
    expect(oneShot.body.field).toBe('file');

    const before = (await api().get('/api/runs').set(auth)).body.runs.length;
    const scope = await api().post('/api/runs').set(auth).send({ platform: 'hubspot', scope: 'segment:12' });
    expect(scope.status).toBe(400);
    expect(scope.body).toMatchObject({ code: 'INVALID_INPUT', field: 'scope' });
    expect(scope.body.error).toMatch(/HubSpot scopes are all, list:<id> and changed-since:<ISO time>/);
    const mailchimp = await api().post('/api/runs').set(auth).send({ platform: 'mailchimp', scope: 'segment:only-a-list' });
    expect(mailchimp.status).toBe(400);
    expect(mailchimp.body.field).toBe('scope');
    expect((await api().get('/api/runs').set(auth)).body.runs.length).toBe(before);
  });
});
