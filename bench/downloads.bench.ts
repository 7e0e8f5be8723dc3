/**
 * What the per-category files (`split`, always on for the hub's uploads) cost at the end of a run: a
 * 50,000-row file cleaned by the file connector with and without them, the results handed over as the
 * pipeline does (page by page). Baseline: the same run without `split` (cleaned + removed files only),
 * measured in the same process. Prints the median time of each, their ratio, and each one's heap high-water mark.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VerificationSchema, type Risk, type Verification } from '@verify-hub/core';
import { FileConnector } from '@verify-hub/connector-file';

const ROWS = Number(process.env.BENCH_ROWS ?? 50_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RISKS: Risk[] = ['safe', 'safe', 'safe', 'safe', 'risky', 'invalid', 'unknown'];

function verify(email: string, row: number): Verification {
  const risk = RISKS[row % RISKS.length]!;
  return VerificationSchema.parse({
    email,
    normalized: email,
    score: { safe: 90, risky: 50, invalid: 5, unknown: 0 }[risk],
    risk,
    reason: { safe: 'deliverable', risky: 'catch_all', invalid: 'mailbox_not_found', unknown: 'smtp_timeout' }[risk],
    checks: { syntax: true, mx: true, smtp: null, smtpCheck: null, disposable: row % 50 === 0, roleAccount: row % 20 === 0, catchAll: risk === 'risky', freeProvider: false, spamTrapRisk: 'none', typoSuggestion: null },
    checkedAt: '2026-01-02T03:04:05.000Z',
    billable: risk !== 'unknown',
  });
}

async function clean(input: string, split: boolean): Promise<number> {
  const connector = new FileConnector({ input, split });
  const started = process.hrtime.bigint();
  let cursor: string | undefined;
  do {
    const page = await connector.pull({ kind: 'file' }, cursor);
    await connector.write(page.contacts.map((contact) => ({ contact, verification: verify(contact.email, Number(contact.id)) })));
    cursor = page.next;
  } while (cursor);
  await connector.finish();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vh-bench-downloads-'));
  try {
    const input = join(dir, 'list.csv');
    const lines = ['first_name,last_name,email,company,city'];
    for (let r = 1; r <= ROWS; r++) lines.push(`First${r},Last${r},person${r}@example.com,Company ${r % 997},City ${r % 101}`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const times: Record<'plain' | 'split', number[]> = { plain: [], split: [] };
    const heapPeak: Record<'plain' | 'split', number> = { plain: 0, split: 0 };
    const measured = async (mode: 'plain' | 'split') => {
      (globalThis as { gc?: () => void }).gc?.();
      const sampler = setInterval(() => (heapPeak[mode] = Math.max(heapPeak[mode], process.memoryUsage().heapUsed)), 10);
      times[mode].push(await clean(input, mode === 'split'));
      clearInterval(sampler);
    };
    await clean(input, false); // warm-up: module loading, JIT
    for (let round = 0; round < ROUNDS; round++) {
      await measured('plain');
      await measured('split');
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const plain = median(times.plain);
    const split = median(times.split);
    console.log(`${ROWS.toLocaleString('en-US')} rows, median of ${ROUNDS} rounds`);
    console.log(`  baseline (cleaned + removed files)        ${(plain / 1000).toFixed(2)} s`);
    console.log(`  with per-category files (CSV and .xlsx)   ${(split / 1000).toFixed(2)} s   ratio ${(split / plain).toFixed(2)}x`);
    const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
    console.log(`  heap high-water mark                      ${mib(heapPeak.plain)} baseline, ${mib(heapPeak.split)} with them (ratio ${(heapPeak.split / heapPeak.plain).toFixed(2)}x)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
