import { readFileSync, writeFileSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { FakeEngine } from '../fakes/engine';
import { createHarness, bearer, type Harness } from './harness';
import { FakeRunService } from './fake-run-service';
import { MemoryConnectionStore, cleanFileRun } from './file-cleaning';

describe('file upload, cleaning and download', () => {
  let h: Harness;
  let engine: FakeEngine;
  const connections = new MemoryConnectionStore();
  beforeAll(async () => {
    engine = new FakeEngine();
    await engine.start();
    const runs = new FakeRunService();
    runs.work = cleanFileRun(connections, { baseUrl: engine.url, apiKey: engine.apiKey });
    h = await createHarness({ runs, connections, upload: { maxRows: 50, maxBytes: 64 * 1024 } });
  });
  afterAll(async () => {
    await h.close();
    await engine.stop();
  });

  const csv = ['name;Email Address;company', 'Ada;ada@example.com;A', 'Bob;invalid.bob@example.com;B', 'Cy;risky.cy@example.com;C', 'Di;di@example.org;D', ''].join('\n');

  it('cleans an uploaded CSV and serves the cleaned file, the removed rows and the summary', async () => {
    const upload = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from(csv), 'My Contacts (march).csv').field('removeRisky', 'true');
    expect(upload.status).toBe(202);
    expect(upload.body.upload).toMatchObject({ name: 'My Contacts (march).csv', rows: 4, emailColumn: 'Email Address', columns: ['name', 'Email Address', 'company'] });
    const runId = upload.body.run.id as string;
    expect(upload.body.run).toMatchObject({ platform: 'file', connectionId: `file-${upload.body.upload.id}` });
    // The file's name only: no server path in any answer.
    expect(upload.body.run.scope).toBe('file:My_Contacts_march_.csv');
    expect(JSON.stringify(upload.body)).not.toContain(h.uploadDir);
    expect(upload.body.links.cleaned).toBe(`/api/runs/${runId}/files/cleaned`);

    await (h.runs as FakeRunService).settle();
    const run = await request(h.hub.app).get(`/api/runs/${runId}`).set(bearer);
    expect(run.body).toMatchObject({ status: 'completed', counters: { pulled: 4, verified: 4 }, progress: { percent: 100 } });

    const cleaned = await request(h.hub.app).get(upload.body.links.cleaned).set(bearer).buffer(true);
    expect(cleaned.status).toBe(200);
    expect(cleaned.headers['content-disposition']).toBe('attachment; filename=My_Contacts_march_.cleaned.csv');
    const lines = cleaned.text.trim().split(/\r?\n/);
    expect(lines[0]!.startsWith('name;Email Address;company;')).toBe(true);
    expect(lines.slice(1).map((l) => l.split(';').slice(0, 2).join(';'))).toEqual(['Ada;ada@example.com', 'Di;di@example.org']);
    expect(lines[1]).toContain('safe');

    const removed = await request(h.hub.app).get(upload.body.links.removed).set(bearer).buffer(true);
    expect(removed.text).toContain('invalid.bob@example.com');
    expect(removed.text).toContain('risky.cy@example.com');
    const summary = await request(h.hub.app).get(upload.body.links.summary).set(bearer);
    expect(JSON.parse(summary.text ?? JSON.stringify(summary.body))).toMatchObject({ rows: 4, removed: 2, counts: { safe: 2, invalid: 1, risky: 1 } });
    expect(engine.requests.filter((r) => r.keyMatched)).toHaveLength(4);
  });

  it('refuses a missing file, another type, a file over the row limit or without emails (400), and an oversize upload (413)', async () => {
    const none = await request(h.hub.app).post('/api/files').set(bearer).field('column', 'email');
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'INVALID_INPUT', field: 'file' });
    const pdf = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from('%PDF-1.4'), 'list.pdf');
    expect(pdf.status).toBe(400);
    expect(pdf.body.error).toMatch(/^file: unsupported type "\.pdf"/);
    const many = ['email', ...Array.from({ length: 51 }, (_, i) => `u${i}@example.com`)].join('\n');
    const tooMany = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from(many), 'many.csv');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('file');
    expect(tooMany.body.error).toMatch(/50/);
    const noEmails = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from('a,b\n1,2\n3,4\n'), 'numbers.csv');
    expect(noEmails.status).toBe(400);
    expect(noEmails.body.field).toBe('file');
    const badField = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from(csv), 'x.csv').field('maxCredits', '-3');
    expect(badField.status).toBe(400);
    expect(badField.body.field).toBe('form.maxCredits');
    const big = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.alloc(65 * 1024, 'a'), 'big.csv');
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    const wrongField = await request(h.hub.app).post('/api/files').set(bearer).attach('upload', Buffer.from(csv), 'x.csv');
    expect(wrongField.status).toBe(400);
    // Nothing refused is left on disk or started.
    expect(readdirSync(h.uploadDir)).toHaveLength(1);
    expect((h.runs as FakeRunService).runs.size).toBe(1);
  });

  it('refuses uploads without the token', async () => {
    const res = await request(h.hub.app).post('/api/files').attach('file', Buffer.from(csv), 'x.csv');
    expect(res.status).toBe(401);
  });

  it('answers 409 before the run completed and 404 for runs that are not uploads', async () => {
    const runs = h.runs as FakeRunService;
    const work = runs.work;
    runs.work = undefined;
    try {
      const upload = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from(csv), 'later.csv');
      const early = await request(h.hub.app).get(`/api/runs/${upload.body.run.id}/files/cleaned`).set(bearer);
      expect(early.status).toBe(409);
      expect(early.body.code).toBe('NOT_READY');
      // A file run over a path outside the upload folder is never served.
      const outside = join(h.uploadDir, '..', 'elsewhere.csv');
      writeFileSync(outside.replace(/\.csv$/, '.cleaned.csv'), 'secret');
      const sneaky = await runs.start({ platform: 'file', scope: `file:${outside}` });
      runs.finish(sneaky.id, 'completed');
      const refused = await request(h.hub.app).get(`/api/runs/${sneaky.id}/files/cleaned`).set(bearer);
      expect(refused.status).toBe(404);
      const kind = await request(h.hub.app).get(`/api/runs/${sneaky.id}/files/everything`).set(bearer);
      expect(kind.status).toBe(400);
      expect(kind.body.field).toBe('params.kind');
      expect(existsSync(outside.replace(/\.csv$/, '.cleaned.csv'))).toBe(true);
      expect(readFileSync(outside.replace(/\.csv$/, '.cleaned.csv'), 'utf8')).toBe('secret');
      rmSync(outside.replace(/\.csv$/, '.cleaned.csv'));
    } finally {
      runs.work = work;
    }
  });
});
