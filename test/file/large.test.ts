import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { InputError, RISKS, type Risk } from '@verify-hub/core';
import { FileConnector } from '@verify-hub/connector-file';
import { fakeVerify, pullAll, resultsFor, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

/** Row i's address: a mix of risks for the fake verifier, some empty cells, some repeats. */
function addressOf(i: number): string {
  if (i % 97 === 0) return '';
  if (i % 50 === 1) return `user${i - 1}@example.com`; // repeats the row before it
  const kinds = ['user', 'bad', 'info', 'unk', 'user'];
  return `${kinds[i % kinds.length]}${i}@example.com`;
}

async function writeRows(name: string, rows: number): Promise<string> {
  const input = tmp.file(name);
  const lines = ['id,name,email,"notes, quoted"'];
  for (let i = 1; i <= rows; i++) lines.push(`${i},"Name ${i}",${addressOf(i)},"note ${i}, with comma"`);
  await writeFile(input, lines.join('\n') + '\n');
  return input;
}

async function countCsvRows(path: string): Promise<{ rows: number; ids: number[] }> {
  const ids: number[] = [];
  let rows = 0;
  for await (const record of createReadStream(path).pipe(parse({ bom: true, from_line: 2 }))) {
    rows++;
    if (rows % 1000 === 1) ids.push(Number((record as string[])[0]));
  }
  return { rows, ids };
}

describe('row limit', () => {
  it('refuses a file over the limit with a message naming the limit and the flag, in inspect() and pull()', async () => {
    const input = await writeRows('over.csv', 120);
    const error = await new FileConnector({ input, maxRows: 100 }).inspect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).field).toBe('maxRows');
    expect((error as Error).message).toMatch(/more than 100 data rows/);
    expect((error as Error).message).toMatch(/--max-rows/);
    await expect(new FileConnector({ input, maxRows: 100 }).pull({ kind: 'file' })).rejects.toBeInstanceOf(InputError);
  });

  it('accepts a file at the limit, and a larger one when the limit is raised', async () => {
    const input = await writeRows('limit.csv', 120);
    expect((await new FileConnector({ input, maxRows: 120 }).inspect()).rowCount).toBe(120);
    expect((await new FileConnector({ input, maxRows: 1000 }).inspect()).rowCount).toBe(120);
  });

  it('refuses by default a file over 50,000 rows', async () => {
    const input = await writeRows('big.csv', 50_001);
    await expect(new FileConnector({ input }).inspect()).rejects.toThrow(/50,000/);
  });
});

describe('a 50,000-row file end to end', () => {
  it('pulls every page, writes every result and finishes with exact counts', async () => {
    const ROWS = 50_000;
    const input = await writeRows('fifty.csv', ROWS);
    const connector = new FileConnector({ input });
    expect((await connector.inspect()).rowCount).toBe(ROWS);

    const pages = await pullAll(connector);
    expect(pages.length).toBe(ROWS / 1000);
    const contacts = pages.flatMap((p) => p.contacts);
    let noEmail = 0;
    const expected: Record<Risk, number> = { safe: 0, risky: 0, invalid: 0, unknown: 0 };
    const billable = new Set<string>();
    for (let i = 1; i <= ROWS; i++) {
      const email = addressOf(i);
      if (email === '') {
        noEmail++;
        continue;
      }
      const verification = fakeVerify(email);
      expected[verification.risk]++;
      if (verification.billable) billable.add(verification.normalized);
    }
    expect(contacts.length).toBe(ROWS - noEmail);
    expect(pages.reduce((n, p) => n + (p.skipped?.no_email ?? 0), 0)).toBe(noEmail);
    expect(contacts.slice(0, 3).map((c) => c.id)).toEqual(['1', '2', '3']);

    // Pages written two at a time, the later one first.
    for (let i = 0; i < pages.length; i += 2) {
      if (pages[i + 1]) await connector.write(resultsFor(pages[i + 1]!.contacts), {});
      await connector.write(resultsFor(pages[i]!.contacts), {});
    }
    const summary = await connector.finish();
    expect(summary.rows).toBe(ROWS);
    expect(summary.counts).toEqual(expected);
    expect(summary.skipped).toEqual({ no_email: noEmail, unparseable: 0 });
    expect(summary.removed).toBe(expected.invalid);
    expect(summary.credits).toBe(billable.size);
    expect(RISKS.reduce((n, r) => n + summary.counts[r], 0) + noEmail).toBe(ROWS);

    const cleaned = await countCsvRows(summary.output);
    const removed = await countCsvRows(summary.removedOutput);
    expect(cleaned.rows + removed.rows).toBe(ROWS);
    expect(removed.rows).toBe(expected.invalid);
    expect(cleaned.ids).toEqual([...cleaned.ids].sort((a, b) => a - b));
  }, 180_000);
});
