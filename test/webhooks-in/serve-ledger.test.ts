import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { CATEGORY_WORDS, LEDGER_CATEGORIES, REASON_WORDS, type LedgerCategory } from '@verify-hub/core';
import type { RunningHub } from '../../cli/src/commands/serve';
import { cli } from '../cli/run-cli';
import type { FakeEngine } from '../fakes/engine';
import { LEDGER_FILE_ROWS, ledgerFileText, ledgerTruth } from '../file/ledger-file';
import { startServeStack, until, type ServeStack } from './serve-stack';

const TOKEN = 'serve-ledger-admin-token-0123456789';

/**
 * One ledger per run, through the hub's file upload: the run's ledger (GET /api/runs/:id/breakdown, as the
 * dashboard shows it), `verify-hub runs show`, summary.json and the downloads agree with the known truth.
 */
describe('a file run\'s one ledger through verify-hub serve', () => {
  let stack: ServeStack;
  let engine: FakeEngine;
  let hub: RunningHub;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const saved = { ...process.env };

  beforeAll(async () => {
    stack = await startServeStack('serve-ledger', TOKEN);
    ({ engine, hub } = stack);
  });
  afterAll(async () => {
    process.env = saved;
    await stack?.close();
  });

  const api = () => request(hub.url);
  const getRun = async (id: string) => (await api().get(`/api/runs/${id}`).set(auth)).body;
  const download = async (runId: string, kind: string) => {
    const res = await api().get(`/api/runs/${runId}/files/${kind}`).set(auth).buffer(true);
    expect([kind, res.status]).toEqual([kind, 200]);
    return res.text;
  };

  it('a 2,000-row file with known categories, the engine stopping (quota) before the last page: run page, CLI, summary.json and files agree to the row', async () => {
    // The second page's addresses answer "quota exhausted": that page stops, its rows are written not checked.
    for (let t = 1; t <= 999; t++) engine.script(`t${t}@example.com`, { kind: 'quota' });
    const truth = ledgerTruth(0);
    expect(truth.total).toBe(LEDGER_FILE_ROWS);

    const preview = await api().post('/api/files/preview').set(auth).attach('file', Buffer.from(ledgerFileText()), 'ledger.csv');
    expect(preview.status).toBe(201);
    const started = await api().post(`/api/files/${preview.body.upload.id}/start`).set(auth).send({});
    expect(started.status).toBe(202);
    const id = started.body.run.id as string;
    const done = await until(() => getRun(id), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), 60_000);
    expect(done.status).toBe('completed');

    // The run page's numbers: the breakdown's ledger, and its risk counts are the ledger's.
    const breakdown = (await api().get(`/api/runs/${id}/breakdown`).set(auth)).body;
    expect(breakdown.ledger).toEqual(truth);
    expect(breakdown.risk).toEqual({ safe: truth.safe, risky: truth.risky, invalid: truth.invalid, unknown: truth.unknown });
    expect(LEDGER_CATEGORIES.reduce((sum, c) => sum + breakdown.ledger[c], 0)).toBe(LEDGER_FILE_ROWS);
    // As the run page shows them: each category with contacts, its plain label, count and explanation.
    // Every unknown of this file has one reason (the fake engine's smtp_timeout): that line says it in words.
    const why = (c: LedgerCategory) => (c === 'unknown' ? `${REASON_WORDS.smtp_timeout}; no credit spent; re-check later` : CATEGORY_WORDS[c].explanation);
    expect(breakdown.unknownReasons).toEqual({ smtp_timeout: truth.unknown });
    expect(breakdown.categories).toEqual(LEDGER_CATEGORIES.filter((c) => truth[c]).map((c) => ({ category: c, label: CATEGORY_WORDS[c].label, count: truth[c], explanation: why(c) })));

    // summary.json, as downloaded.
    const summary = JSON.parse(await download(id, 'summary'));
    expect(summary.ledger).toEqual(truth);

    // The downloads: every row in exactly one file, in the category its result columns say.
    const fromFiles = Object.fromEntries(LEDGER_CATEGORIES.map((c) => [c, 0])) as Record<LedgerCategory, number>;
    const counted = async (kind: string) => {
      const rows = parse(await download(id, kind), { columns: true, bom: true }) as Record<string, string>[];
      for (const row of rows) fromFiles[row.ev_risk === '' || row.ev_reason === 'not_checked' ? 'not_checked' : (row.ev_risk as LedgerCategory)]++;
      return rows.length;
    };
    const cleaned = await counted('cleaned');
    const removed = await counted('removed');
    fromFiles.unreadable = (parse(await download(id, 'rejected'), { bom: true }) as string[][]).length - 1;
    expect(fromFiles).toEqual({ ...truth, total: undefined, write_failed: 0 });
    expect(cleaned + removed + fromFiles.unreadable).toBe(LEDGER_FILE_ROWS);

    // `verify-hub runs show` over the hub's Redis: the same ledger, in plain words.
    process.env.VERIFY_HUB_REDIS_PREFIX = stack.prefix;
    const shown = await cli('runs', id);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('ledger     2,000 contacts, each in exactly one category:');
    for (const c of LEDGER_CATEGORIES) if (truth[c]) expect(shown.out).toContain(`${CATEGORY_WORDS[c].label} (${truth[c].toLocaleString('en-US')}): `);
    const json = await cli('runs', id, '--json');
    expect(JSON.parse(json.out).ledger).toEqual(truth);
  }, 120_000);
});
