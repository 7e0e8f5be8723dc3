import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { FakeEngine } from '../fakes/engine';
import { ledgerFileRows, ledgerFileText, ledgerTruth } from '../file/ledger-file';
import { createHarness, bearer, type Harness } from './harness';
import { FakeRunService } from './fake-run-service';
import { MemoryConnectionStore, cleanFileRun } from './file-cleaning';

async function xlsxNames(body: Buffer): Promise<{ header: unknown[]; names: string[] }> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(body as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  book.worksheets[0]!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return { header: rows[0]!, names: rows.slice(1).map((r) => String(r[0])) };
}

const binary = (res: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('per-category downloads of a file run', () => {
  let h: Harness;
  let engine: FakeEngine;
  let runs: FakeRunService;
  const connections = new MemoryConnectionStore();
  beforeAll(async () => {
    engine = new FakeEngine();
    await engine.start();
    runs = new FakeRunService();
    runs.work = cleanFileRun(connections, { baseUrl: engine.url, apiKey: engine.apiKey });
    h = await createHarness({ runs, connections });
  });
  afterAll(async () => {
    await h?.close();
    await engine.stop();
  });

  it('lists each category and flag with its count and serves exactly its rows, in input order, as CSV and .xlsx', async () => {
    const upload = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from(ledgerFileText()), 'ledger.csv');
    expect(upload.status).toBe(202);
    const runId = upload.body.run.id as string;
    expect(upload.body.links.downloads).toBe(`/api/runs/${runId}/downloads`);
    await runs.settle();

    const truth = ledgerTruth(999);
    const rows = ledgerFileRows();
    const listed = await request(h.hub.app).get(`/api/runs/${runId}/downloads`).set(bearer);
    expect(listed.status).toBe(200);
    const counts = Object.fromEntries([...listed.body.categories, ...listed.body.flags].map((c: { category: string; count: number }) => [c.category, c.count]));
    expect(counts).toEqual({ safe: truth.safe, risky: truth.risky, invalid: truth.invalid, unknown: truth.unknown, not_checked: truth.not_checked, unreadable: 1, role: 0, disposable: 0, catch_all: truth.risky });
    expect(listed.body.cleaned.count + listed.body.removed.count + truth.unreadable).toBe(truth.total);
    expect(listed.body.removed).toEqual({ count: truth.invalid, href: `/api/runs/${runId}/files/removed`, risks: ['invalid'] });
    const invalid = listed.body.categories.find((c: { category: string }) => c.category === 'invalid');
    expect(invalid).toMatchObject({ label: 'Invalid', csv: `/api/runs/${runId}/download?category=invalid&format=csv`, xlsx: `/api/runs/${runId}/download?category=invalid&format=xlsx` });
    // Nothing to download for a list without rows; the unreadable rows are CSV only.
    expect(listed.body.flags.find((c: { category: string }) => c.category === 'role')).not.toHaveProperty('csv');
    const unreadable = listed.body.categories.find((c: { category: string }) => c.category === 'unreadable');
    expect(unreadable.csv).toBeDefined();
    expect(unreadable).not.toHaveProperty('xlsx');

    for (const name of ['safe', 'risky', 'invalid', 'unknown', 'not_checked', 'catch_all']) {
      const expected = rows.filter((r) => r.category === name || r.flags.includes(name)).map((r) => r.name);
      expect([name, expected.length]).toEqual([name, counts[name]]);
      const csv = await request(h.hub.app).get(`/api/runs/${runId}/download?category=${name}&format=csv`).set(bearer).buffer(true);
      expect(csv.status).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      expect(csv.headers['content-disposition']).toBe(`attachment; filename=ledger-${name.replace('_', '-')}.csv`);
      const table = parse(csv.text, { bom: true }) as string[][];
      expect(table[0]!.slice(0, 3)).toEqual(['name', 'email', 'ev_risk']);
      expect(table[0]).toContain('ev_did_you_mean');
      expect([name, table.slice(1).map((r) => r[0])]).toEqual([name, expected]);

      const xlsx = await request(h.hub.app).get(`/api/runs/${runId}/download?category=${name}&format=xlsx`).set(bearer).buffer(true).parse(binary);
      expect(xlsx.status).toBe(200);
      expect(xlsx.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(xlsx.headers['content-disposition']).toBe(`attachment; filename=ledger-${name.replace('_', '-')}.xlsx`);
      const book = await xlsxNames(xlsx.body as Buffer);
      expect(book.header).toEqual(table[0]);
      expect([name, book.names]).toEqual([name, expected]);
    }
    const rejected = await request(h.hub.app).get(`/api/runs/${runId}/download?category=unreadable`).set(bearer).buffer(true);
    expect(rejected.status).toBe(200);
    expect((parse(rejected.text, { bom: true }) as string[][]).slice(1).map((r) => r[2])).toEqual(['Broken,broken@example.com,a field too many']);
    // No server path in any answer or file.
    expect(JSON.stringify(listed.body)).not.toContain(h.uploadDir);

    const none = await request(h.hub.app).get(`/api/runs/${runId}/download?category=role&format=csv`).set(bearer);
    expect(none.status).toBe(404);
    expect(none.body.error).toBe(`run ${runId} has no role rows to download`);
  }, 120_000);

  it('answers 400 naming the field for a bad category or format, and 409 before the run completed', async () => {
    const work = runs.work;
    runs.work = undefined;
    try {
      const upload = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from('email\na@example.com\n'), 'later.csv');
      const id = upload.body.run.id as string;
      const badCategory = await request(h.hub.app).get(`/api/runs/${id}/download?category=everything&format=csv`).set(bearer);
      expect(badCategory.status).toBe(400);
      expect(badCategory.body).toMatchObject({ code: 'INVALID_INPUT', field: 'query.category' });
      expect(badCategory.body.error).toMatch(/^query\.category: must be one of safe, risky, invalid/);
      const noCategory = await request(h.hub.app).get(`/api/runs/${id}/download`).set(bearer);
      expect(noCategory.body.field).toBe('query.category');
      const badFormat = await request(h.hub.app).get(`/api/runs/${id}/download?category=invalid&format=pdf`).set(bearer);
      expect(badFormat.status).toBe(400);
      expect(badFormat.body).toMatchObject({ field: 'query.format', error: 'query.format: must be csv or xlsx' });
      const rejectedXlsx = await request(h.hub.app).get(`/api/runs/${id}/download?category=unreadable&format=xlsx`).set(bearer);
      expect(rejectedXlsx.status).toBe(400);
      expect(rejectedXlsx.body.field).toBe('query.format');
      const early = await request(h.hub.app).get(`/api/runs/${id}/download?category=invalid&format=xlsx`).set(bearer);
      expect(early.status).toBe(409);
      expect(early.body).toMatchObject({ code: 'NOT_READY', error: `run ${id} is queued; its files are ready when it completes` });
      const list = await request(h.hub.app).get(`/api/runs/${id}/downloads`).set(bearer);
      expect(list.status).toBe(409);
      const unsigned = await request(h.hub.app).get(`/api/runs/${id}/download?category=invalid`);
      expect(unsigned.status).toBe(401);
    } finally {
      runs.work = work;
    }
  });

  it('answers 404 for the downloads of a dry run, which wrote no file', async () => {
    const upload = await request(h.hub.app).post('/api/files').set(bearer).attach('file', Buffer.from('email\ninvalid.a@example.com\n'), 'dry.csv').field('dryRun', 'true');
    expect(upload.status).toBe(202);
    await runs.settle();
    const id = upload.body.run.id as string;
    expect((await request(h.hub.app).get(`/api/runs/${id}`).set(bearer)).body.status).toBe('completed');
    const list = await request(h.hub.app).get(`/api/runs/${id}/downloads`).set(bearer);
    expect([list.status, list.body.error]).toEqual([404, `run ${id} was a dry run: it wrote no files`]);
    const file = await request(h.hub.app).get(`/api/runs/${id}/download?category=invalid`).set(bearer);
    expect(file.status).toBe(404);
  });
});
