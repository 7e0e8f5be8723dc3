import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerConnector, SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeEngine } from '../fakes/engine';
import { FakeSource } from '../fakes/source';
import { cli } from './run-cli';

/** `verify-hub clean`'s wrong-column guard and money, and `verify-hub runs list` by name, source, status and search. */
describe('verify-hub CLI: cost, the wrong-column guard and the run history', () => {
  const engine = new FakeEngine();
  let dir: string;
  const saved = { ...process.env };
  const prefix = `vhtest-clicost-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await engine.start();
    dir = mkdtempSync(join(tmpdir(), 'vh-cli-cost-'));
    process.env.ENGINE_URL = engine.url;
    process.env.ENGINE_API_KEY = engine.apiKey;
    process.env.VERIFY_HUB_REDIS_PREFIX = prefix;
    process.env.VERIFY_HUB_PRICE_PER_1000 = '1.20';
  });
  afterAll(async () => {
    const cleanup = new SyncPipeline({ redisUrl: saved.REDIS_URL ?? process.env.REDIS_URL, prefix });
    await cleanup.purge();
    await cleanup.close();
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
    await engine.stop();
  });

  const people = (n: number) => ['Name,Email', ...Array.from({ length: n }, (_, i) => `Person ${i},person.${i}@example.com`)].join('\n') + '\n';

  it('clean refuses a column that does not look like addresses, naming it, the share and the better column; --force goes on with a warning', async () => {
    const input = join(dir, 'people.csv');
    writeFileSync(input, people(10));
    const before = engine.requests.length;
    const refused = await cli('clean', input, '--column', 'Name', '--no-progress');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('column: only 0% of the values in column "Name" look like email addresses; is this the email column? Column "Email" looks like one.');
    expect(refused.err).toContain('pick it with --column "Email", or add --force');
    expect(engine.requests.length).toBe(before);
    expect(existsSync(join(dir, 'people.cleaned.csv'))).toBe(false);

    const forced = await cli('clean', input, '--column', 'Name', '--force', '--no-progress');
    expect(forced.code).toBe(0);
    expect(forced.err).toContain('warning: only 0% of the values in column "Name" look like email addresses');
    expect(forced.out).toMatch(/Invalid \(10\)/);
  });

  it('clean states the estimate as a ceiling before verifying, then what it spent, in credits and money (VERIFY_HUB_PRICE_PER_1000)', async () => {
    const input = join(dir, 'priced.csv');
    // 10 people, 2 of them twice (the domain in any letter case), and an address that can never be one: at most 10 credits.
    writeFileSync(input, `${people(10)}Again,person.1@example.com\nAgain,person.2@EXAMPLE.com\nBroken,not an address\n`);
    const r = await cli('clean', input, '--no-progress');
    expect(r.code).toBe(0);
    expect(r.err).toContain('verify-hub: At most 10 credits (≈ $0.01): duplicates, addresses already checked recently and unknown results are free');
    expect(r.out).toMatch(/^ {2}spent: 10 credits \(≈ \$0\.01\)$/m);
  });

  it('runs list shows names and narrows by source, status and search; bad values are refused naming the option', async () => {
    registerConnector('fake', () => new FakeSource({ size: 5, pageSize: 5 }));
    const pipeline = new SyncPipeline({ redisUrl: process.env.REDIS_URL, prefix });
    let spring: string;
    try {
      spring = (await pipeline.start({ platform: 'fake', scope: 'all', name: 'Spring newsletter' })).id;
      await pipeline.start({ platform: 'fake', scope: 'all', name: 'Autumn promo' });
    } finally {
      await pipeline.close();
    }
    const all = await cli('runs', 'list');
    expect(all.code).toBe(0);
    expect(all.out).toContain('Spring newsletter');
    expect(all.out).toContain('Autumn promo');
    const search = await cli('runs', 'list', '--search', 'SPRING');
    expect(search.out).toContain('Spring newsletter');
    expect(search.out).not.toContain('Autumn promo');
    expect((await cli('runs', '--source', 'platform', '--status', 'queued')).out.split('\n')).toHaveLength(2);
    expect((await cli('runs', '--source', 'file')).out).toBe('no runs match');
    expect((await cli('runs', '--status', 'completed', '--search', 'spring')).out).toBe('no runs match');
    const one = await cli('runs', spring);
    expect(one.out).toMatch(/^name {7}Spring newsletter$/m);
    expect(one.out).toMatch(/^credits {4}0 credits \(≈ \$0\.00\)/m);

    expect(await cli('runs', '--source', 'csv')).toMatchObject({ code: 2, err: expect.stringMatching(/--source: "csv" is not a source \(file or platform\)/) });
    expect(await cli('runs', '--status', 'done')).toMatchObject({ code: 2, err: expect.stringMatching(/--status: "done" is not a run status/) });
    expect(await cli('runs', 'list', spring)).toMatchObject({ code: 2, err: expect.stringMatching(/takes no run id/) });
  });
});
