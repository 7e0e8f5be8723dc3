import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import { registerConnector, SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeSource } from '../fakes/source';
import { LEDGER_CATEGORIES, CATEGORY_WORDS, type LedgerCategory } from '@verify-hub/core';
import { LEDGER_FILE_ROWS, LEDGER_FIRST_PAGE_CREDITS, LEDGER_TAIL_VERIFIED, ledgerFileText, ledgerTruth } from '../file/ledger-file';
import { cli } from './run-cli';
import { cliBin } from '../setup/cli-bin';

describe('verify-hub CLI', () => {
  const engine = new FakeEngine();
  let dir: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    await engine.start();
    dir = mkdtempSync(join(tmpdir(), 'vh-cli-'));
    process.env.ENGINE_URL = engine.url;
    process.env.ENGINE_API_KEY = engine.apiKey;
    process.env.VERIFY_HUB_REDIS_PREFIX = `vhtest-cli-${randomUUID().slice(0, 8)}`;
  });
  afterAll(async () => {
    const cleanup = new SyncPipeline({ redisUrl: saved.REDIS_URL ?? process.env.REDIS_URL, prefix: process.env.VERIFY_HUB_REDIS_PREFIX });
    await cleanup.purge();
    await cleanup.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
    await engine.stop();
  });

  it('clean verifies a CSV with the engine at ENGINE_URL, writes the cleaned, removed and summary files and prints the summary', async () => {
    const input = join(dir, 'list.csv');
    writeFileSync(input, 'name;email;note\nAda;ada@example.com;"likes ; semicolons"\nBob;invalid.bob@example.org;\nCy;risky.cy@example.net;\nDee;not-an-address;\nAda again;ada@example.com;dup\n');
    const r = await cli('clean', input, '--remove', 'risky', '--no-progress');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Cleaned 5 rows/);
    expect(r.out).toMatch(/Safe \(2\): /);
    expect(r.out).toMatch(/Invalid \(2\): /);
    expect(r.out).toMatch(/removed: 3 rows \(invalid, risky\)/);
    expect(r.out).toMatch(/spent: 3 credits$/m); // ada once (duplicate served from cache), bob, cy; the bad syntax costs nothing
    const cleaned = readFileSync(join(dir, 'list.cleaned.csv'), 'utf8');
    expect(cleaned).toContain('likes ; semicolons');
    expect(cleaned.split('\n')[0]).toMatch(/ev_risk/);
    const removed = readFileSync(join(dir, 'list.removed.csv'), 'utf8');
    expect(removed).toContain('invalid.bob@example.org');
    expect(removed).toContain('risky.cy@example.net');
    expect(removed).toContain('not-an-address');
    const summary = JSON.parse(readFileSync(join(dir, 'list.summary.json'), 'utf8'));
    expect(summary.counts).toEqual({ safe: 2, risky: 1, invalid: 2, unknown: 0 });
    expect(engine.requests.filter((q) => q.keyMatched).length).toBe(3);
    expect(engine.requests.every((q) => !q.url.includes(engine.apiKey))).toBe(true);
  });

  it('clean pays once for an address that comes back on a later page, verified alongside its first page or long after it', async () => {
    const input = join(dir, 'repeats.csv');
    // Three pages of 1,000 rows (two are verified at a time): page 2 repeats half of page 1 while page 1
    // is still being verified (the pages share their purchases), page 3 repeats the other half after
    // page 1 is done (the cache, which keeps the repeated addresses).
    const address = (i: number) => `person${i}@repeat.example.com`;
    const rows = [...Array.from({ length: 1_000 }, (_, i) => address(i)), ...Array.from({ length: 1_000 }, (_, i) => address(i < 500 ? i : i + 500)), ...Array.from({ length: 500 }, (_, i) => address(500 + i))];
    writeFileSync(input, `name,email\n${rows.map((email, i) => `p${i},${email}`).join('\n')}\n`);
    const before = engine.requests.length;
    const r = await cli('clean', input, '--no-progress');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Cleaned 2,500 rows/);
    expect(r.out).toMatch(/spent: 1,500 credits$/m);
    expect(r.out).toMatch(/1,000 rows repeat an earlier address/);
    const asked = engine.requests.slice(before).map((q) => q.email);
    expect(asked.length).toBe(1_500);
    expect(new Set(asked).size).toBe(1_500);
    const cleaned = readFileSync(join(dir, 'repeats.cleaned.csv'), 'utf8').trim().split('\n');
    expect(cleaned.length).toBe(2_501);
    // A repeat carries its first row's result columns, word for word.
    const resultOf = (row: number) => cleaned[row]!.split(',').slice(2);
    expect(resultOf(1_001)).toEqual(resultOf(1));
    expect(resultOf(2_001)).toEqual(resultOf(501));
  });

  it('clean: one ledger: a 2,000-row file with known categories and a credit limit; the summary printed, summary.json and the files agree with the truth to the row', async () => {
    const input = join(dir, 'ledger.csv');
    writeFileSync(input, ledgerFileText());
    const truth = ledgerTruth(LEDGER_TAIL_VERIFIED);
    const cap = LEDGER_FIRST_PAGE_CREDITS + LEDGER_TAIL_VERIFIED;
    const r = await cli('clean', input, '--no-progress', '--max-credits', String(cap));
    expect([r.code, r.err]).toEqual([0, expect.stringMatching(/credit cap of \d+ reached/)]);
    expect(truth.total).toBe(LEDGER_FILE_ROWS);

    const summary = JSON.parse(readFileSync(join(dir, 'ledger.summary.json'), 'utf8'));
    expect(summary.ledger).toEqual(truth);
    expect(summary.credits).toBe(cap);
    expect(LEDGER_CATEGORIES.reduce((sum, c) => sum + summary.ledger[c], 0)).toBe(LEDGER_FILE_ROWS);

    // The summary printed: one count per category, each the ledger's, in plain words.
    expect(r.out).toContain('Cleaned 2,000 rows');
    for (const c of LEDGER_CATEGORIES) {
      // Every unknown of this file has one reason (the fake engine's smtp_timeout): the line says it in plain words.
      const why = c === 'unknown' ? 'the mail server did not answer in time; no credit spent; re-check later' : CATEGORY_WORDS[c].explanation;
      const line = `${CATEGORY_WORDS[c].label} (${truth[c].toLocaleString('en-US')}): ${why}`;
      if (truth[c]) expect(r.out).toContain(line);
      else expect(r.out).not.toContain(`${CATEGORY_WORDS[c].label} (`);
    }
    expect(r.out).not.toMatch(/unknown results cost nothing/);

    // The files: every row in exactly one of them, in the category its result columns say.
    const fromFiles = Object.fromEntries(LEDGER_CATEGORIES.map((c) => [c, 0])) as Record<LedgerCategory, number>;
    const counted = (kind: string) => {
      const rows = parse(readFileSync(join(dir, `ledger.${kind}.csv`), 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
      for (const row of rows) fromFiles[row.ev_risk === '' || row.ev_reason === 'not_checked' ? 'not_checked' : (row.ev_risk as LedgerCategory)]++;
      return rows.length;
    };
    const cleaned = counted('cleaned');
    const removed = counted('removed');
    const rejected = (parse(readFileSync(join(dir, 'ledger.rejected_rows.csv'), 'utf8'), { bom: true }) as string[][]).length - 1;
    fromFiles.unreadable = rejected;
    expect(fromFiles).toEqual({ ...truth, total: undefined, write_failed: 0 });
    expect([cleaned, removed, rejected]).toEqual([truth.total - truth.invalid - truth.unreadable, truth.invalid, truth.unreadable]);
    expect(summary.removed).toBe(removed);
  });

  it('clean against an engine answering in the published shape: the engine\'s risks, and its flags in the result columns (null flags empty)', async () => {
    const input = join(dir, 'published.csv');
    writeFileSync(input, 'email\nfine@published.test\ndisposable.x@published.test\nnotchecked.y@published.test\nrisky.z@published.test\ninvalid.w@published.test\nunknown.v@published.test\n');
    const r = await cli('clean', input, '--no-progress');
    expect(r.code).toBe(0);
    const rows = parse(readFileSync(join(dir, 'published.cleaned.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const by = (email: string) => rows.find((row) => row.email === email)!;
    expect(rows.map((row) => row.ev_risk)).toEqual(['safe', 'risky', 'risky', 'risky', 'unknown']); // invalid goes to the removed file
    expect(readFileSync(join(dir, 'published.removed.csv'), 'utf8')).toMatch(/invalid\.w@published\.test,invalid,3,/);
    expect(by('unknown.v@published.test')).toMatchObject({ ev_disposable: 'false', ev_spam_trap_risk: 'low' });
    expect(by('fine@published.test')).toMatchObject({ ev_score: '92', ev_disposable: 'false', ev_role_account: 'false', ev_catch_all: 'false', ev_free_provider: 'false', ev_spam_trap_risk: 'none' });
    expect(by('disposable.x@published.test')).toMatchObject({ ev_disposable: 'true', ev_catch_all: 'false', ev_spam_trap_risk: 'low' });
    expect(by('risky.z@published.test')).toMatchObject({ ev_catch_all: 'true', ev_disposable: 'false' });

    // Field set A only: it has no catch-all and no spam-trap field, so those cells stay empty, never "false".
    engine.options.fieldSet = 'A';
    try {
      const inputA = join(dir, 'field-set-a.csv');
      writeFileSync(inputA, 'email\nfine@set-a.test\ndisposable.x@set-a.test\n');
      expect((await cli('clean', inputA, '--no-progress')).code).toBe(0);
      const rowsA = parse(readFileSync(join(dir, 'field-set-a.cleaned.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      expect(rowsA[0]).toMatchObject({ ev_risk: 'safe', ev_disposable: 'false', ev_catch_all: '', ev_spam_trap_risk: '' });
      expect(rowsA[1]).toMatchObject({ ev_risk: 'risky', ev_reason: 'disposable', ev_disposable: 'true', ev_catch_all: '' });
    } finally {
      engine.options.fieldSet = undefined;
    }
  });

  it('clean with the local engine says once, clearly, when DNS cannot reach the internet, and leaves those rows unknown', async () => {
    const input = join(dir, 'dns.csv');
    writeFileSync(input, 'email\nsomeone@company-that-does-not-exist-1234.com\nperson@another-made-up-domain-5678.org\nthird@made-up-3.net\n');
    delete process.env.ENGINE_URL;
    delete process.env.ENGINE_API_KEY;
    process.env.ENGINE_DNS_SERVERS = '127.0.0.1:1'; // a resolver that answers nothing, as in a sandbox
    try {
      const r = await cli('clean', input, '--no-progress');
      expect(r.code).toBe(0);
      expect(r.err).toContain('local engine (in-process)');
      expect(r.err.match(/DNS cannot reach the internet/g)).toHaveLength(1);
      expect(r.out).toContain('Unknown (3): the mail server could not be reached from this server (its DNS lookups fail); no credit spent; re-check later');
      const cleaned = readFileSync(join(dir, 'dns.cleaned.csv'), 'utf8');
      expect(cleaned.match(/,unknown,0,dns_unavailable,/g)).toHaveLength(3);
    } finally {
      process.env.ENGINE_URL = engine.url;
      process.env.ENGINE_API_KEY = engine.apiKey;
      delete process.env.ENGINE_DNS_SERVERS;
    }
  });

  it('bad arguments and configuration exit with code 2 and a message naming the problem', async () => {
    expect(await cli('clean')).toMatchObject({ code: 2, err: expect.stringMatching(/missing required argument 'file'/) });
    expect(await cli('clean', 'x.csv', '--max-rows', 'many')).toMatchObject({ code: 2, err: expect.stringMatching(/--max-rows.*must be a whole number/) });
    expect(await cli('clean', 'x.csv', '--remove', 'safe')).toMatchObject({ code: 2, err: expect.stringMatching(/"safe" is not one of invalid, risky, unknown/) });
    expect(await cli('clean', join(dir, 'missing.csv'))).toMatchObject({ code: 2, err: expect.stringMatching(/file: .*missing.csv does not exist/) });
    expect(await cli('runs', 'resume')).toMatchObject({ code: 2, err: expect.stringMatching(/needs a run id/) });
    expect(await cli('sync', 'fake', '--max-credits', '-3')).toMatchObject({ code: 2 });
    // A scope the connector cannot read is refused at start, naming the field: no run is queued.
    process.env.HUBSPOT_ACCESS_TOKEN = 'pat-na1-00000000-0000-0000-0000-000000000000';
    try {
      const before = (await cli('runs', '--json')).out;
      expect(await cli('sync', 'hubspot', '--scope', 'segment:12')).toMatchObject({ code: 2, err: expect.stringMatching(/scope: HubSpot scopes are all, list:<id> and changed-since:<ISO time>; got segment/) });
      expect(await cli('sync', 'hubspot', '--scope', 'list:abc')).toMatchObject({ code: 2, err: expect.stringMatching(/scope: list:<id> needs a numeric HubSpot list id/) });
      expect((await cli('runs', '--json')).out).toBe(before);
    } finally {
      delete process.env.HUBSPOT_ACCESS_TOKEN;
    }
    expect(await cli('nonsense')).toMatchObject({ code: 2, err: expect.stringMatching(/unknown command/) });
    process.env.REDIS_URL = 'redis://127.0.0.1:1';
    try {
      expect(await cli('runs')).toMatchObject({ code: 2, err: expect.stringMatching(/REDIS_URL: no Redis answers at 127.0.0.1:1/) });
    } finally {
      process.env.REDIS_URL = saved.REDIS_URL;
    }
    process.env.VERIFY_HUB_TYPO = '1';
    try {
      expect(await cli('clean', 'x.csv')).toMatchObject({ code: 2, err: expect.stringMatching(/VERIFY_HUB_TYPO: unknown configuration variable/) });
    } finally {
      delete process.env.VERIFY_HUB_TYPO;
    }
  });

  it('sync --with-worker runs a source to the end; runs lists and shows it', async () => {
    const source = new FakeSource({ size: 250, pageSize: 50, invalidEvery: 5 });
    registerConnector('fake', () => source);
    const r = await cli('sync', 'fake', '--with-worker', '--no-progress');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/status\s+completed/);
    expect(r.out).toMatch(/contacts\s+250 pulled/);
    expect(r.out).toMatch(/writes\s+250 written, 0 unchanged, 0 failed/);
    const id = /run\s+(run_\S+)/.exec(r.out)![1]!;
    const list = await cli('runs');
    expect(list.out).toContain(id);
    const one = await cli('runs', id, '--json');
    expect(JSON.parse(one.out)).toMatchObject({ id, status: 'completed', counters: { written: 250 } });
    const report = await cli('runs', 'report', id);
    expect(report.out.split('\n').filter((l) => l.includes(',invalid,')).length).toBe(50);
    expect(await cli('runs', 'resume', id)).toMatchObject({ code: 2, err: expect.stringMatching(/only a paused run/) });
  }, 60_000);

  it('worker answers /healthz and /readyz on --health-port and stops gracefully on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [cliBin(), 'worker', '--health-port', '0'], {
      env: { ...process.env, HUB_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = Date.now() + 60_000;
    while (!stderr.includes('worker started') && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(stderr).toContain('worker started');
    const health = /health at (http:\/\/127\.0\.0\.1:\d+)\/readyz/.exec(stderr)?.[1];
    expect(health).toBeDefined();
    expect((await fetch(`${health}/healthz`)).status).toBe(200);
    const ready = await fetch(`${health}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { redis: true, workers: true } });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM: finishing the active jobs, then stopping');
    expect(stderr).toContain('worker stopped');
  }, 80_000);

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '..', '..', 'cli', 'package.json'), 'utf8')) as { version: string };
    const r = await cli('--version');
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(version);
  });

  it('clean on a terminal: the bar moves as rows are verified and its last line shows 100 % and the credits spent', async () => {
    const input = join(dir, 'bar.csv');
    writeFileSync(input, 'email\nada@example.com\ninvalid.bob@example.org\nrisky.cy@example.net\nnot-an-address\nada@example.com\n');
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    try {
      const r = await cli('clean', input, '--dry-run');
      expect(r.code).toBe(0);
      const drawn = r.err.split('\r').filter((s) => s.startsWith('verifying'));
      expect(drawn.length).toBeGreaterThan(0);
      const last = drawn.at(-1)!;
      expect(last).toMatch(/100 % \| 5\/5 \| 3 credits/);
      // Never 100 % before the last line.
      expect(drawn.slice(0, -1).some((s) => s.includes('100 %'))).toBe(false);
    } finally {
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
    }
  });

  it('clean on a terminal with the local engine: the DNS note goes above the bar, which goes on to 100 %', async () => {
    const input = join(dir, 'dns-bar.csv');
    writeFileSync(input, `email\n${Array.from({ length: 30 }, (_, i) => `p${i}@made-up-domain-${i}-5678.com`).join('\n')}\n`);
    delete process.env.ENGINE_URL;
    delete process.env.ENGINE_API_KEY;
    process.env.ENGINE_DNS_SERVERS = '127.0.0.1:1';
    const tty = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
    Object.defineProperty(process.stderr, 'isTTY', { value: true, configurable: true });
    try {
      const r = await cli('clean', input, '--dry-run');
      expect(r.code).toBe(0);
      const note = r.err.indexOf('DNS cannot reach the internet');
      expect(note).toBeGreaterThan(-1);
      const after = r.err.slice(note).split('\r').filter((s) => s.startsWith('verifying'));
      expect(after.at(-1)).toMatch(/100 % \| 30\/30 \| 0 credits/);
    } finally {
      if (tty) Object.defineProperty(process.stderr, 'isTTY', tty);
      else delete (process.stderr as { isTTY?: boolean }).isTTY;
      process.env.ENGINE_URL = engine.url;
      process.env.ENGINE_API_KEY = engine.apiKey;
      delete process.env.ENGINE_DNS_SERVERS;
    }
  });

  it('serve prints the dashboard\'s address on start', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(__dirname, '..', '..', 'cli', 'bin', 'verify-hub.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--no-workers'], {
      env: { ...process.env, VERIFY_HUB_FROM_SOURCE: '1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const printed = new Promise<void>((resolve) => child.stderr.on('data', (d) => ((stderr += String(d)), /verify-hub is running/.test(stderr) && resolve())));
    await Promise.race([printed, exited]);
    child.kill('SIGTERM');
    expect(stderr).toMatch(/verify-hub is running: open http:\/\/localhost:\d+\//);
    await exited;
  }, 80_000);

  it('the bin itself exits 2 on a bad argument', () => {
    const run = spawnSync(process.execPath, [cliBin(), 'clean'], { encoding: 'utf8', env: { ...saved, ENGINE_URL: '', ENGINE_API_KEY: '' }, timeout: 60_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/missing required argument 'file'/);
  }, 70_000);
});
