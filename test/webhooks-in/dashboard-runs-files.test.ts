import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { CATEGORY_WORDS, REASON_WORDS, estimateText } from '@verify-hub/core';
import { FakeEngine } from '../fakes/engine';
import { createHarness, bearer, type Harness } from './harness';
import { FakeRunService } from './fake-run-service';
import { MemoryConnectionStore, cleanFileRun } from './file-cleaning';
import { FakeOperations } from './dashboard-fakes';

describe('dashboard API: run pause and breakdown', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('pauses a queued or running run (a user pause), and refuses a finished one naming the id', async () => {
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    const paused = await request(h.hub.app).post(`/api/runs/${run.id}/pause`).set(bearer);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: run.id, status: 'paused', statusReason: 'paused by a user', progress: { done: 0, pulled: 0 } });
    const again = await request(h.hub.app).post(`/api/runs/${run.id}/pause`).set(bearer);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'INVALID_INPUT', field: 'id' });
    expect(again.body.error).toMatch(/is paused; only a queued or running run can be paused/);
    expect((await request(h.hub.app).post(`/api/runs/${run.id}/resume`).set(bearer)).body.status).toBe('running');
    expect((await request(h.hub.app).post(`/api/runs/${run.id}/pause`).set(bearer)).status).toBe(200);
    h.runs.finish(run.id, 'completed');
    expect((await request(h.hub.app).post(`/api/runs/${run.id}/pause`).set(bearer)).status).toBe(400);
    expect((await request(h.hub.app).post('/api/runs/run-nope/pause').set(bearer)).status).toBe(404);
    const bad = await request(h.hub.app).post('/api/runs/not%20an%20id/pause').set(bearer);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('params.id');
  });

  it('answers a run breakdown: risks, reasons (most frequent first), failures and their total', async () => {
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    h.runs.reports.set(run.id, [
      { contactId: '1', email: 'a@example.com', risk: 'safe', reason: 'accepted', outcome: 'written' },
      { contactId: '2', email: 'b@example.com', risk: 'invalid', reason: 'mailbox_not_found', outcome: 'written' },
      { contactId: '3', email: 'c@example.com', risk: 'invalid', reason: 'mailbox_not_found', outcome: 'failed', error: 'HubSpot said no' },
      { contactId: '4', email: 'd@example.com', risk: 'risky', reason: 'catch_all', outcome: 'written' },
    ]);
    const res = await request(h.hub.app).get(`/api/runs/${run.id}/breakdown`).set(bearer);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      // The ledger: contact 3's write failed, so it is "failed to write", not invalid.
      risk: { safe: 1, risky: 1, invalid: 1, unknown: 0 },
      ledger: { safe: 1, risky: 1, invalid: 1, unknown: 0, not_checked: 0, unreadable: 0, write_failed: 1, total: 4 },
      unknownReasons: {},
      // Each category with contacts and each reason, in core's plain words (a reason it does not know has none).
      categories: [
        { category: 'safe', label: 'Safe', count: 1, explanation: CATEGORY_WORDS.safe.explanation },
        { category: 'risky', label: 'Risky', count: 1, explanation: CATEGORY_WORDS.risky.explanation },
        { category: 'invalid', label: 'Invalid', count: 1, explanation: CATEGORY_WORDS.invalid.explanation },
        { category: 'write_failed', label: 'Failed to write', count: 1, explanation: CATEGORY_WORDS.write_failed.explanation },
      ],
      reasons: [
        { reason: 'mailbox_not_found', count: 2, words: REASON_WORDS.mailbox_not_found },
        { reason: 'accepted', count: 1 },
        { reason: 'catch_all', count: 1, words: REASON_WORDS.catch_all },
      ],
      failures: [{ contactId: '3', email: 'c@example.com', error: 'HubSpot said no' }],
      failuresTotal: 1,
    });
    expect((await request(h.hub.app).get('/api/runs/run-nope/breakdown').set(bearer)).status).toBe(404);
    expect((await request(h.hub.app).get(`/api/runs/${run.id}/breakdown`)).status).toBe(401);
  });
});

describe('dashboard API: clean a file in two steps (preview with estimate, then start)', () => {
  let h: Harness;
  let engine: FakeEngine;
  const connections = new MemoryConnectionStore();
  const operations = new FakeOperations(connections);
  const runs = () => h.runs as FakeRunService;

  beforeAll(async () => {
    engine = new FakeEngine();
    await engine.start();
    const fakeRuns = new FakeRunService();
    fakeRuns.work = cleanFileRun(connections, { baseUrl: engine.url, apiKey: engine.apiKey });
    h = await createHarness({ runs: fakeRuns, connections, operations, upload: { maxRows: 50, maxBytes: 64 * 1024 } });
  });
  afterAll(async () => {
    await h.close();
    await engine.stop();
  });

  // Two email columns: `Work email` is found first; `Home email` holds a repeated address.
  const csv = [
    'Name,Work email,Home email',
    'Ada,ada@example.com,home@example.com',
    'Bob,invalid.bob@example.com,home@example.com',
    'Cy,risky.cy@example.com,cy@example.org',
    'Di,di@example.org,di@example.net',
    'Ed,ed@example.org,ed@example.net',
    'Flo,flo@example.org,flo@example.net',
    '',
  ].join('\n');
  const preview = (body: Buffer, name: string) => request(h.hub.app).post('/api/files/preview').set(bearer).attach('file', body, name);

  it('previews a CSV: its columns, the email column, the first 5 rows and the credit estimate; nothing starts', async () => {
    const res = await preview(Buffer.from(csv), 'Spring list.csv');
    expect(res.status).toBe(201);
    const { upload, estimate } = res.body;
    expect(upload).toMatchObject({ name: 'Spring list.csv', bytes: Buffer.byteLength(csv), rows: 6, columns: ['Name', 'Work email', 'Home email'], emailColumn: 'Work email' });
    expect(upload.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(upload.sample).toHaveLength(5);
    expect(upload.sample[0]).toEqual({ Name: 'Ada', 'Work email': 'ada@example.com', 'Home email': 'home@example.com' });
    // A ceiling, in core's words (no price configured here: credits only).
    expect(estimate).toEqual({ contacts: 6, unique: 6, cached: 0, estimatedCredits: 6, cost: { credits: 6, text: estimateText(6) } });
    expect(estimate.cost.text).toBe('At most 6 credits: duplicates, addresses already checked recently and unknown results are free');
    const path = join(h.uploadDir, upload.id, 'Spring_list.csv');
    expect(existsSync(path)).toBe(true);
    expect(operations.estimates.at(-1)!.request).toEqual({ platform: 'file', connectionId: `file-${upload.id}`, scope: `file:${path}` });
    expect(runs().runs.size).toBe(0);
    expect(connections.records.get(`file-${upload.id}`)).toMatchObject({ platform: 'file', label: 'Spring list.csv', settings: { input: path, remove: ['invalid'], maxRows: 50 } });
  });

  it('estimates another email column (kept for the start), and refuses a column the file does not have', async () => {
    const { body } = await preview(Buffer.from(csv), 'columns.csv');
    const id = body.upload.id as string;
    const home = await request(h.hub.app).get(`/api/files/${id}/estimate`).query({ column: 'Home email' }).set(bearer);
    expect(home.status).toBe(200);
    expect(home.body).toEqual({ contacts: 6, unique: 5, cached: 0, estimatedCredits: 5, cost: { credits: 5, text: estimateText(5) } });
    expect(operations.estimates.at(-1)!.column).toBe('Home email');
    const unknown = await request(h.hub.app).get(`/api/files/${id}/estimate`).query({ column: 'Fax' }).set(bearer);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ code: 'INVALID_INPUT', field: 'column', error: 'column: this file has no column "Fax": pick one of its columns' });
    expect(connections.records.get(`file-${id}`)!.settings!.column).toBe('Home email');
    const same = await request(h.hub.app).get(`/api/files/${id}/estimate`).set(bearer);
    expect(same.body.unique).toBe(5);
    const missing = await request(h.hub.app).get('/api/files/00000000-0000-4000-8000-000000000000/estimate').set(bearer);
    expect(missing.status).toBe(404);
    const bad = await request(h.hub.app).get('/api/files/..%2Fetc/estimate').set(bearer);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('params.uploadId');
  });

  it('starts the previewed upload with the chosen column and risky rows removed: the same answer as the one-shot upload', async () => {
    const { body } = await preview(Buffer.from(csv), 'start.csv');
    const id = body.upload.id as string;
    const badBody = await request(h.hub.app).post(`/api/files/${id}/start`).set(bearer).send({ removeRisky: 'yes' });
    expect(badBody.status).toBe(400);
    expect(badBody.body.field).toBe('body.removeRisky');
    const badColumn = await request(h.hub.app).post(`/api/files/${id}/start`).set(bearer).send({ column: 'Fax' });
    expect(badColumn.status).toBe(400);
    expect(badColumn.body.field).toBe('column');

    const res = await request(h.hub.app).post(`/api/files/${id}/start`).set(bearer).send({ column: 'Work email', removeRisky: true, maxCredits: 100 });
    expect(res.status).toBe(202);
    const runId = res.body.run.id as string;
    expect(res.headers.location).toBe(`/api/runs/${runId}`);
    expect(res.body.run).toMatchObject({ platform: 'file', connectionId: `file-${id}`, scope: 'file:start.csv', options: { maxCredits: 100 }, expectedTotal: 6, progress: { total: 6, percent: 0 } }); // the preview's rows: the progress total from the start
    expect(res.body.upload).toEqual({ id, name: 'start.csv', bytes: Buffer.byteLength(csv), rows: 6, columns: ['Name', 'Work email', 'Home email'], emailColumn: 'Work email' });
    expect(res.body.links).toEqual({ run: `/api/runs/${runId}`, cleaned: `/api/runs/${runId}/files/cleaned`, removed: `/api/runs/${runId}/files/removed`, rejected: `/api/runs/${runId}/files/rejected`, summary: `/api/runs/${runId}/files/summary`, downloads: `/api/runs/${runId}/downloads` });
    expect(JSON.stringify(res.body)).not.toContain(h.uploadDir);

    await runs().settle();
    const removed = await request(h.hub.app).get(res.body.links.removed).set(bearer).buffer(true);
    expect(removed.status).toBe(200);
    expect(removed.text).toContain('invalid.bob@example.com');
    expect(removed.text).toContain('risky.cy@example.com');
    const cleaned = await request(h.hub.app).get(res.body.links.cleaned).set(bearer).buffer(true);
    expect(cleaned.text).toContain('ada@example.com');
    expect(cleaned.text).not.toContain('risky.cy@example.com');

    const twice = await request(h.hub.app).post(`/api/files/${id}/start`).set(bearer).send({});
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('ALREADY_STARTED');
    expect((await request(h.hub.app).post('/api/files/00000000-0000-4000-8000-000000000000/start').set(bearer).send({})).status).toBe(404);
  });

  it('refuses what it cannot clean, naming `file` in words a marketer understands, and keeps nothing', async () => {
    const before = readdirSync(h.uploadDir).length;
    const stored = connections.records.size;
    const pdf = await preview(Buffer.from('%PDF-1.4'), 'list.pdf');
    expect(pdf.status).toBe(400);
    expect(pdf.body).toEqual({ code: 'INVALID_INPUT', field: 'file', error: 'file: unsupported type ".pdf": upload a CSV file (.csv, .tsv, .txt) or an Excel workbook (.xlsx)' });

    const many = ['email', ...Array.from({ length: 51 }, (_, i) => `u${i}@example.com`)].join('\n');
    const tooMany = await preview(Buffer.from(many), 'many.csv');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ code: 'INVALID_INPUT', field: 'file', error: 'file: has more than 50 rows, the most one file may have: split it into smaller files and upload each' });

    const noEmails = await preview(Buffer.from('a,b\n1,2\n3,4\n'), 'numbers.csv');
    expect(noEmails.status).toBe(400);
    expect(noEmails.body.field).toBe('file');
    expect(noEmails.body.error).toMatch(/^file: no column of email addresses was found/);

    const notExcel = await preview(Buffer.from('this is not a workbook'), 'broken.xlsx');
    expect(notExcel.status).toBe(400);
    expect(notExcel.body).toMatchObject({ field: 'file', error: 'file: cannot be read as CSV or Excel (.xlsx): save it as CSV (UTF-8) or .xlsx and upload it again' });

    const empty = await preview(Buffer.from(''), 'empty.csv');
    expect(empty.status).toBe(400);
    expect(empty.body.field).toBe('file');

    const none = await request(h.hub.app).post('/api/files/preview').set(bearer).field('column', 'email');
    expect(none.status).toBe(400);
    expect(none.body.field).toBe('file');
    const badColumn = await request(h.hub.app).post('/api/files/preview').set(bearer).attach('file', Buffer.from(csv), 'x.csv').field('column', 'Fax');
    expect(badColumn.status).toBe(400);
    expect(badColumn.body.field).toBe('column');

    // No server path or CLI flag reaches the user.
    for (const res of [tooMany, noEmails, notExcel, empty]) {
      expect(res.body.error).not.toContain(h.uploadDir);
      expect(res.body.error).not.toContain('--');
    }
    expect(readdirSync(h.uploadDir)).toHaveLength(before);
    expect(connections.records.size).toBe(stored);
  });
});

describe('dashboard API: previews nobody started do not stay on the hub', () => {
  let h: Harness;
  const connections = new MemoryConnectionStore();
  const ABANDONED_AFTER_MS = 1_000;

  beforeAll(async () => {
    h = await createHarness({ connections, operations: new FakeOperations(connections), upload: { abandonedAfterMs: ABANDONED_AFTER_MS } });
  });
  afterAll(async () => {
    await h.close();
  });

  const csv = Buffer.from('email\nada@example.com\nbob@example.org\n');
  const preview = async (name: string): Promise<string> => {
    const res = await request(h.hub.app).post('/api/files/preview').set(bearer).attach('file', csv, name);
    expect(res.status).toBe(201);
    return res.body.upload.id as string;
  };
  const kept = (id: string) => existsSync(join(h.uploadDir, id)) && connections.records.has(`file-${id}`);

  it('removes a preview on request (another file chosen), but never an upload a run was started over', async () => {
    const id = await preview('first.csv');
    expect(kept(id)).toBe(true);
    expect((await request(h.hub.app).delete(`/api/files/${id}`).set(bearer)).status).toBe(204);
    expect(existsSync(join(h.uploadDir, id))).toBe(false);
    expect(connections.records.has(`file-${id}`)).toBe(false);
    expect((await request(h.hub.app).delete(`/api/files/${id}`).set(bearer)).status).toBe(404);

    const started = await preview('started.csv');
    expect((await request(h.hub.app).post(`/api/files/${started}/start`).set(bearer).send({})).status).toBe(202);
    const refused = await request(h.hub.app).delete(`/api/files/${started}`).set(bearer);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('ALREADY_STARTED');
    expect(kept(started)).toBe(true);
    expect((await request(h.hub.app).delete('/api/files/not-an-id').set(bearer)).body.field).toBe('params.uploadId');
  });

  it('sweeps previews older than the limit when a new file is previewed; started and recent ones stay', async () => {
    const old = await preview('old.csv');
    const started = await preview('old-started.csv');
    expect((await request(h.hub.app).post(`/api/files/${started}/start`).set(bearer).send({})).status).toBe(202);
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    for (const id of [old, started]) await connections.save({ ...connections.records.get(`file-${id}`)!, createdAt: anHourAgo });
    // Sweeps are at most one per limit (here 1 s): the next preview after that finds the old one.
    await new Promise((resolve) => setTimeout(resolve, ABANDONED_AFTER_MS + 100));
    const recent = await preview('recent.csv');
    expect(kept(old)).toBe(false);
    expect(existsSync(join(h.uploadDir, old))).toBe(false);
    expect(kept(started)).toBe(true);
    expect(kept(recent)).toBe(true);
    // Within the limit the preview after it sweeps nothing: the recent one stays.
    const next = await preview('next.csv');
    expect(kept(recent)).toBe(true);
    expect(kept(next)).toBe(true);
  });
});

describe('dashboard API: cleaned uploads expire after the retention period', () => {
  let h: Harness;
  const connections = new MemoryConnectionStore();
  const RETENTION_MS = 60_000;

  beforeAll(async () => {
    // Every preview looks for expired uploads (abandonedAfterMs 1), so no test waits for a sweep.
    h = await createHarness({ connections, operations: new FakeOperations(connections), upload: { abandonedAfterMs: 1, retentionMs: RETENTION_MS } });
  });
  afterAll(async () => {
    await h.close();
  });

  const startUpload = async (name: string): Promise<string> => {
    const res = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from('email\nada@example.com\n'), name);
    expect(res.status).toBe(202);
    return res.body.upload.id as string;
  };
  const kept = (id: string) => existsSync(join(h.uploadDir, id)) && connections.records.has(`file-${id}`);

  it('removes an upload a run was started over (file, outputs, record) once it is older than the retention period; younger ones stay', async () => {
    const old = await startUpload('old.csv');
    const recent = await startUpload('recent.csv');
    const record = connections.records.get(`file-${old}`)!;
    await connections.save({ ...record, createdAt: new Date(Date.now() - 2 * RETENTION_MS).toISOString() });
    expect(kept(old)).toBe(true);
    const next = await request(h.hub.app).post('/api/files/preview').set(bearer).attach('file', Buffer.from('email\nbob@example.org\n'), 'next.csv');
    expect(next.status).toBe(201);
    expect(existsSync(join(h.uploadDir, old))).toBe(false);
    expect(connections.records.has(`file-${old}`)).toBe(false);
    expect(kept(recent)).toBe(true);
  });
});
