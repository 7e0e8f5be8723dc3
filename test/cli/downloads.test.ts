import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { ledgerFileText, ledgerTruth } from '../file/ledger-file';
import { startServeStack, until, type ServeStack } from '../webhooks-in/serve-stack';
import { cli } from './run-cli';

const TOKEN = 'cli-downloads-admin-token-0123456789';
const csvRows = (path: string) => parse(readFileSync(path, 'utf8'), { bom: true }) as string[][];

/** `clean --split` and `runs download`: the same per-category files the hub serves, counted as the ledger counts. */
describe('per-category files from the CLI', () => {
  let stack: ServeStack;
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    stack = await startServeStack('cli-downloads', TOKEN);
    dir = mkdtempSync(join(tmpdir(), 'vh-cli-downloads-'));
    process.env.ENGINE_URL = stack.engine.url;
    process.env.ENGINE_API_KEY = stack.engine.apiKey;
    process.env.VERIFY_HUB_REDIS_PREFIX = stack.prefix;
  });
  afterAll(async () => {
    process.env = saved;
    await stack?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('clean --split writes each category and flag with rows as CSV and .xlsx, and prints where, with the ledger\'s counts', async () => {
    const input = join(dir, 'ledger.csv');
    writeFileSync(input, ledgerFileText());
    const r = await cli('clean', input, '--split', '--no-progress');
    expect(r.code).toBe(0);
    const truth = ledgerTruth(999);
    // The fake engine answers risky on catch-all domains: the catch-all flag has the risky rows.
    const expected = { Safe: ['safe', truth.safe], Risky: ['risky', truth.risky], Invalid: ['invalid', truth.invalid], Unknown: ['unknown', truth.unknown], 'Not checked': ['not_checked', truth.not_checked], 'Catch-all': ['catch_all', truth.risky] } as const;
    expect(r.out).toContain('Per category and flag (CSV and Excel):');
    for (const [label, [name, count]] of Object.entries(expected)) {
      const csv = join(dir, `ledger.${name}.csv`);
      expect(r.out).toContain(`  ${label} (${count.toLocaleString('en-US')}): ${csv}, ${join(dir, `ledger.${name}.xlsx`)}`);
      expect([name, csvRows(csv).length - 1]).toEqual([name, count]);
    }
    expect(r.out).not.toContain('Role address (');
    expect(existsSync(join(dir, 'ledger.role.csv'))).toBe(false);
  }, 120_000);

  it('runs download copies a completed file run\'s category file, and refuses a bad category, format or an existing target', async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const upload = await request(stack.hub.url).post('/api/files').set(auth).attach('file', Buffer.from(ledgerFileText()), 'hub-list.csv');
    expect(upload.status).toBe(202);
    const id = upload.body.run.id as string;
    await until(async () => (await request(stack.hub.url).get(`/api/runs/${id}`).set(auth)).body.status, (s) => s === 'completed', 60_000);

    const out = join(dir, 'invalid.xlsx');
    const r = await cli('runs', 'download', id, '--category', 'invalid', '--format', 'xlsx', '--out', out);
    expect([r.code, r.out]).toEqual([0, `wrote ${out}`]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(out);
    // The same rows the hub serves for that link.
    const served = await request(stack.hub.url).get(`/api/runs/${id}/download?category=invalid&format=csv`).set(auth).buffer(true);
    const servedRows = parse(served.text, { bom: true }) as string[][];
    expect(book.worksheets[0]!.rowCount).toBe(servedRows.length);
    expect(servedRows.length - 1).toBe(ledgerTruth(999).invalid);
    expect(book.worksheets[0]!.getRow(2).getCell(1).value).toBe(servedRows[1]![0]);

    const again = await cli('runs', 'download', id, '--category', 'invalid', '--format', 'xlsx', '--out', out);
    expect(again.code).not.toBe(0);
    expect(again.err).toContain('--out');
    const bad = await cli('runs', 'download', id, '--category', 'everything');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--category.*"everything" is not one of safe, risky, invalid/);
    const format = await cli('runs', 'download', id, '--category', 'safe', '--format', 'pdf');
    expect(format.err).toMatch(/--format.*"pdf" is not csv or xlsx/);
  }, 120_000);
});
