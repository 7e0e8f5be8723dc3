import { writeFile } from 'node:fs/promises';
import { FileConnector } from '@verify-hub/connector-file';
import { brokenFileText, rowOf } from './broken-file';
import { readCsvFile, runInOrder, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

describe('rows that cannot be read go to the rejected-rows file, with the line and the reason', () => {
  it('a 5,000-row file with an unclosed quote near its end, a NUL and a wide row: every row in exactly one output, at the right line', async () => {
    const input = tmp.file('broken.csv');
    await writeFile(input, brokenFileText());
    const connector = new FileConnector({ input });
    await runInOrder(connector);
    const summary = await connector.finish();

    const cleaned = (await readCsvFile(summary.output)).rows;
    const removed = (await readCsvFile(summary.removedOutput)).rows;
    const rejected = (await readCsvFile(summary.rejectedOutput)).rows;
    expect(rejected[0]).toEqual(['line', 'reason', 'record']);
    const seen = new Map<number, string[]>();
    const note = (row: number, where: string) => seen.set(row, [...(seen.get(row) ?? []), where]);
    for (const r of cleaned.slice(1)) note(rowOf(r[1]!), 'cleaned');
    for (const r of removed.slice(1)) note(rowOf(r[1]!), 'removed');
    for (const [line, , record] of rejected.slice(1)) {
      // The record's own text is kept, and its line is the row's line (row r is on line r + 1).
      const row = Number(/p(\d+)@/.exec(record!)?.[1]);
      expect(Number(line)).toBe(row + 1);
      note(row, 'rejected');
    }
    for (let r = 1; r <= 5000; r++) expect([r, seen.get(r)?.length]).toEqual([r, 1]);
    expect(seen.size).toBe(5000);

    expect(rejected.slice(1).map(([line, reason]) => [line, reason])).toEqual([
      ['201', 'wrong number of fields: expected 3, got 4'],
      ['4991', expect.stringMatching(/^a quote opened on this line/)],
    ]);
    expect(seen.get(100)).toEqual(['removed']); // a NUL in an address: invalid (syntax), never sent anywhere
    expect(summary).toMatchObject({ rows: 4998, rejected: 2, skipped: { unparseable: 2, no_email: 0 } });
    expect(summary.skipped.no_result ?? 0).toBe(0);
    expect(summary.problems).toEqual([
      { line: 201, message: 'wrong number of fields: expected 3, got 4' },
      { line: 4991, message: expect.stringMatching(/^a quote opened on this line/) },
    ]);
    // Rows around the broken one keep their own cells (nothing shifted).
    const byRow = new Map(cleaned.slice(1).map((r) => [rowOf(r[1]!), r]));
    expect(byRow.get(4989)!.slice(0, 3)).toEqual(['Pérsön 4989', 'p4989@example.com', 'nöte, 4989']);
    expect(byRow.get(4991)!.slice(0, 3)).toEqual(['Pérsön 4991', 'p4991@example.com', 'nöte, 4991']);
  });

  it('escapes formula cells in every CSV it writes (cleaned, removed, rejected)', async () => {
    const input = tmp.file('formulas.csv');
    await writeFile(input, 'name,email,note\n"=HYPERLINK(""http://x.example"",""y"")",a@example.com,+1 555\n@SUM(1),bad@example.com,-2\n"\tTab",c@example.com,ok\n=1+1,d@example.com,ok,too many\n');
    const connector = new FileConnector({ input });
    await runInOrder(connector);
    const summary = await connector.finish();
    const cleaned = (await readCsvFile(summary.output)).rows;
    const removed = (await readCsvFile(summary.removedOutput)).rows;
    const rejected = (await readCsvFile(summary.rejectedOutput)).rows;
    expect(cleaned.slice(1).map((r) => r.slice(0, 3))).toEqual([
      [`'=HYPERLINK("http://x.example","y")`, 'a@example.com', `'+1 555`],
      [`'\tTab`, 'c@example.com', 'ok'],
    ]);
    expect(removed.slice(1).map((r) => r.slice(0, 3))).toEqual([[`'@SUM(1)`, 'bad@example.com', `'-2`]]);
    expect(rejected.slice(1)).toEqual([['5', 'wrong number of fields: expected 3, got 4', `'=1+1,d@example.com,ok,too many`]]);
    // Our own columns are not touched: scores stay numbers.
    expect(cleaned[1]![4]).toBe('90');
  });
});
