import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { domainToASCII } from 'node:url';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { FakeEngine } from '../fakes/engine';
import { cli } from './run-cli';

/** A small seeded generator (mulberry32): the same 10,000 addresses on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Addresses a mail system could accept: they must still reach the engine. */
const GOOD: ((i: number) => string)[] = [
  (i) => `user${i}@example.com`,
  (i) => `First.Last+tag${i}@Sub${i % 7}.Example.org`,
  (i) => `o'brien_${i}@example.net`,
  (i) => `anna${i}@bücher${i % 5}.example`,
  (i) => `"john doe ${i}"@example.com`,
  (i) => `x${i}@${'l'.repeat(63)}.example.com`,
  (i) => `  padded${i}@example.com  `,
];

/** Each inserts one defect that no address can have: they must never reach the engine. */
const BAD: ((i: number) => string)[] = [
  (i) => `nul${i}\u0000@example.com`,
  (i) => `cr${i}\r@example.com`,
  (i) => `lf${i}@exam\nple.com`,
  (i) => `bell${i}\u0007@example.com`,
  (i) => `rtl${i}\u202e@example.com`,
  (i) => `zw${i}\u200b@example.com`,
  (i) => `surrogate${i}\ud800@example.com`,
  (i) => `double${i}@@example.com`,
  (i) => `two${i}@at@example.com`,
  (i) => `dots${i}@example..com`,
  (i) => `.lead${i}@example.com`,
  (i) => `trail${i}.@example.com`,
  (i) => `in..side${i}@example.com`,
  (i) => `label${i}@.example.com`,
  (i) => `fqdn${i}@example.com.`,
  (i) => `long${i}@${'l'.repeat(64)}.example.com`,
  (i) => `a${i}@example.com, b${i}@example.org`,
  (i) => `a${i}@example.com;b${i}@example.org`,
  (i) => `a${i}@example.com b${i}@example.org`,
  (i) => `Name <n${i}@example.com>`,
];

describe('clean rejects what can never be an address before paying for it', () => {
  const engine = new FakeEngine();
  let dir: string;
  const saved = { ...process.env };
  beforeAll(async () => {
    await engine.start();
    dir = mkdtempSync(join(tmpdir(), 'vh-fuzz-'));
    process.env.ENGINE_URL = engine.url;
    process.env.ENGINE_API_KEY = engine.apiKey;
  });
  afterAll(async () => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
    await engine.stop();
  });

  it('10,000 fuzzed addresses: 0 engine calls for the locally invalid ones, every valid one sent once', async () => {
    const next = random(16);
    const rows: { id: string; email: string; good: boolean }[] = [];
    for (let i = 0; i < 10_000; i++) {
      const good = next() < 0.5;
      const pool = good ? GOOD : BAD;
      rows.push({ id: String(i + 1), email: pool[Math.floor(next() * pool.length)]!(i), good });
    }
    const input = join(dir, 'fuzz.csv');
    writeFileSync(input, stringify([['id', 'email'], ...rows.map((r) => [r.id, r.email])]));

    const r = await cli('clean', input, '--no-progress');
    expect(r.err).not.toMatch(/error/i);
    expect(r.code).toBe(0);

    const sent = engine.requests.filter((q) => q.keyMatched).map((q) => q.email);
    // What the engine is asked: the address trimmed, its domain lower-cased and in ASCII (punycode).
    const asSent = (email: string) => {
      const at = email.trim().lastIndexOf('@');
      return `${email.trim().slice(0, at)}@${domainToASCII(email.trim().slice(at + 1).toLowerCase())}`;
    };
    const good = new Set(rows.filter((row) => row.good).map((row) => asSent(row.email)));
    const bad = rows.filter((row) => !row.good);
    expect(bad.length).toBeGreaterThan(4000);
    // Not one locally invalid address was sent; each valid one was sent exactly once.
    expect(sent.filter((email) => !good.has(email!))).toEqual([]);
    expect(sent.length).toBe(good.size);
    expect(new Set(sent).size).toBe(good.size);

    // Every invalid row is in the removed file as invalid (syntax); none in the cleaned file.
    const removed = parse(readFileSync(join(dir, 'fuzz.removed.csv'), 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
    const removedIds = new Map(removed.map((row) => [row.id, row]));
    for (const row of bad) expect([row.id, removedIds.get(row.id)?.ev_risk, removedIds.get(row.id)?.ev_reason]).toEqual([row.id, 'invalid', 'syntax']);
    const summary = JSON.parse(readFileSync(join(dir, 'fuzz.summary.json'), 'utf8'));
    expect(summary.rows).toBe(10_000);
    expect(summary.rejected).toBe(0);
    // 10,000 rows through the CLI in-process: seconds when quiet, far longer on a loaded 2-core machine.
  }, 180_000);
});
