import { readdir, writeFile } from 'node:fs/promises';
import { VerifyHubError, type ContactResult, type Page } from '@verify-hub/core';
import { FileConnector } from '@verify-hub/connector-file';
import { parse } from 'csv-parse/sync';
import { csvRecord } from '../../connectors/file/src/sinks';
import { expectedResultCells, expectedRisk, fakeVerify, pullAll, readCsvFile, RESULT_HEADER, resultsFor, runInOrder, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

/** name,email,team rows: a mix of risks (by the fake verifier's rules), an empty email, a duplicate. */
const EMAILS = ['ada@example.com', 'bad1@example.com', '', 'info@example.org', 'unk@example.net', 'ada@EXAMPLE.com', 'not an address', 'zed@example.com', 'someone@gmial.com'];
async function writePeople(name = 'people.csv'): Promise<string> {
  const input = tmp.file(name);
  await writeFile(input, ['name,email,team', ...EMAILS.map((e, i) => `Person ${i + 1},${e},T${i % 3}`)].join('\r\n') + '\r\n');
  return input;
}

describe('cleaned and removed outputs', () => {
  it('has exactly the original columns in order, then the result columns, with core’s write-back values', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    await runInOrder(connector);
    const summary = await connector.finish();
    const cleaned = await readCsvFile(summary.output);
    const removed = await readCsvFile(summary.removedOutput);
    expect(cleaned.rows[0]).toEqual(['name', 'email', 'team', ...RESULT_HEADER]);
    expect(removed.rows[0]).toEqual(cleaned.rows[0]);
    for (const row of [...cleaned.rows.slice(1), ...removed.rows.slice(1)]) {
      const email = row[1]!;
      if (email === '') {
        expect(row.slice(3)).toEqual(RESULT_HEADER.map(() => ''));
        continue;
      }
      const expected = expectedResultCells(fakeVerify(email.trim()));
      expect(Object.fromEntries(RESULT_HEADER.map((name, i) => [name, row[3 + i]]))).toEqual(expected);
    }
    // The engine's typo suggestion, as a whole address; empty on every other row.
    const didYouMean = cleaned.rows.slice(1).map((row) => [row[1], row[3 + RESULT_HEADER.indexOf('ev_did_you_mean')]]);
    expect(didYouMean.filter(([, cell]) => cell !== '')).toEqual([['someone@gmial.com', 'someone@gmail.com']]);
  });

  it('moves invalid rows (and the risks asked for) to the removed file; counts per risk, credits and duplicates in the summary', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input, remove: ['invalid', 'unknown'] });
    await runInOrder(connector);
    const summary = await connector.finish();
    const withEmail = EMAILS.filter((e) => e !== '');
    const risks = withEmail.map(expectedRisk);
    const count = (r: string) => risks.filter((x) => x === r).length;
    expect(summary.counts).toEqual({ safe: count('safe'), risky: count('risky'), invalid: count('invalid'), unknown: count('unknown') });
    expect(summary.rows).toBe(EMAILS.length);
    expect(summary.removed).toBe(count('invalid') + count('unknown'));
    expect(summary.skipped).toEqual({ no_email: 1, unparseable: 0 });
    expect(summary.duplicateRows).toBe(1); // ada@EXAMPLE.com is ada@example.com
    const billable = new Set(withEmail.map((e) => fakeVerify(e)).filter((v) => v.billable).map((v) => v.normalized));
    expect(summary.credits).toBe(billable.size);
    const cleaned = await readCsvFile(summary.output);
    const removed = await readCsvFile(summary.removedOutput);
    expect(removed.rows.slice(1).map((r) => r[1])).toEqual(withEmail.filter((e) => ['invalid', 'unknown'].includes(expectedRisk(e))));
    // Both duplicate rows are kept and each has the result.
    expect(cleaned.rows.filter((r) => r[1]?.toLowerCase() === 'ada@example.com').map((r) => r[3])).toEqual(['safe', 'safe']);
    // The empty-email row stays in the cleaned file, in its place, with empty result columns.
    expect(cleaned.rows.slice(1).map((r) => r[0])).toEqual(EMAILS.map((e, i) => [e, `Person ${i + 1}`] as const).filter(([e]) => e === '' || !['invalid', 'unknown'].includes(expectedRisk(e))).map(([, n]) => n));
    const json = JSON.parse(await (await import('node:fs/promises')).readFile(summary.summaryOutput, 'utf8'));
    // The JSON names the files, never the folders they are in (it is served as a download).
    const names = { input: 'people.csv', output: 'people.cleaned.csv', removedOutput: 'people.removed.csv', summaryOutput: 'people.summary.json', rejectedOutput: 'people.rejected_rows.csv' };
    expect(json).toEqual({ ...summary, ...names });
    expect(JSON.stringify(json)).not.toContain(tmp.dir);
  });

  it('keeps input order when pages and results arrive out of order', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input, pageSize: 3 });
    const pages: Page[] = await pullAll(connector);
    expect(pages.length).toBeGreaterThan(2);
    const all = pages.flatMap((p) => resultsFor(p.contacts));
    // Last page first, and within a batch the results reversed.
    const batches: ContactResult[][] = pages.map((p) => resultsFor(p.contacts).reverse()).reverse();
    for (const batch of batches) await connector.write(batch, {});
    const summary = await connector.finish();
    const cleaned = await readCsvFile(summary.output);
    const removed = await readCsvFile(summary.removedOutput);
    const keptIds = cleaned.rows.slice(1).map((r) => r[0]);
    expect(keptIds).toEqual([...keptIds].sort((a, b) => Number(a!.split(' ')[1]) - Number(b!.split(' ')[1])));
    expect(cleaned.rows.length - 1 + removed.rows.length - 1).toBe(EMAILS.length);
    expect(all.length).toBe(EMAILS.filter((e) => e !== '').length);
  });

  it('keeps order under concurrent writes of shuffled single results', async () => {
    const input = tmp.file('many.csv');
    const emails = Array.from({ length: 200 }, (_, i) => `user${i}@example.com`);
    await writeFile(input, ['email', ...emails].join('\n'));
    const connector = new FileConnector({ input, pageSize: 25 });
    const results = (await pullAll(connector)).flatMap((p) => resultsFor(p.contacts));
    const shuffled = results.map((r, i) => ({ r, k: (i * 7919) % 211 })).sort((a, b) => a.k - b.k).map((x) => x.r);
    await Promise.all(shuffled.map((r) => connector.write([r], {})));
    const summary = await connector.finish();
    const cleaned = await readCsvFile(summary.output);
    expect(cleaned.rows.slice(1).map((r) => r[0])).toEqual(emails);
  });

  it('writes nothing on a dry run, and still returns the summary', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    await runInOrder(connector, { dryRun: true });
    const summary = await connector.finish();
    expect(summary.dryRun).toBe(true);
    expect(summary.rows).toBe(EMAILS.length);
    expect(summary.counts.safe).toBe(EMAILS.filter((e) => e !== '' && expectedRisk(e) === 'safe').length);
    expect(await readdir(tmp.dir)).toEqual(['people.csv']);
  });

  it('refuses to mix dry-run and real writes, and writes after finish()', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    const [page] = await pullAll(connector);
    const results = resultsFor(page!.contacts);
    await connector.write(results.slice(0, 1), { dryRun: true });
    await expect(connector.write(results.slice(1, 2), {})).rejects.toMatchObject({ field: 'dryRun' });
    await connector.finish();
    await expect(connector.write(results.slice(2, 3), { dryRun: true })).rejects.toBeInstanceOf(VerifyHubError);
  });

  it('counts a re-delivered result as unchanged and reports a result for an unknown row', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    const [page] = await pullAll(connector);
    const results = resultsFor(page!.contacts);
    expect(await connector.write(results, {})).toEqual({ written: results.length, unchanged: [], failed: [] });
    const again = await connector.write([...results.slice(0, 2), { contact: { id: 'x7', email: 'a@example.com' }, verification: fakeVerify('a@example.com') }], {});
    expect(again.written).toBe(0);
    expect(again.unchanged).toEqual(results.slice(0, 2).map((r) => r.contact.id));
    expect(again.failed).toEqual([expect.objectContaining({ contactId: 'x7', retryable: false })]);
    const summary = await connector.finish();
    expect(summary.rows).toBe(EMAILS.length);
  });

  it('gives rows whose result never came empty result columns and counts them', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    const contacts = (await pullAll(connector)).flatMap((p) => p.contacts);
    await connector.write(resultsFor(contacts.slice(2)), {});
    const summary = await connector.finish();
    expect(summary.skipped.no_result).toBe(2);
    expect(summary.rows).toBe(EMAILS.length);
    const cleaned = await readCsvFile(summary.output);
    expect(cleaned.rows[1]!.slice(3)).toEqual(RESULT_HEADER.map(() => ''));
  });

  it('does not write a result onto a row with another address, and counts results for rows the file lacks', async () => {
    const input = await writePeople();
    const connector = new FileConnector({ input });
    const contacts = (await pullAll(connector)).flatMap((p) => p.contacts);
    const results = resultsFor(contacts);
    results[0] = { contact: results[0]!.contact, verification: fakeVerify('someone.else@example.com') };
    results.push({ contact: { id: '999', email: 'ghost@example.com' }, verification: fakeVerify('ghost@example.com') });
    await connector.write(results, {});
    const summary = await connector.finish();
    expect(summary.skipped).toMatchObject({ no_result: 1, unknown_row: 1 });
    expect(summary.problems).toEqual([{ line: 2, message: expect.stringMatching(/row 1: the result is for someone\.else@example\.com/) }]);
    const cleaned = await readCsvFile(summary.output);
    expect(cleaned.rows[1]!.slice(3)).toEqual(RESULT_HEADER.map(() => ''));
  });

  it('gives a headerless list a header in the outputs', async () => {
    const input = await tmp.copy('headerless.txt');
    const connector = new FileConnector({ input });
    await runInOrder(connector);
    const summary = await connector.finish();
    const cleaned = await readCsvFile(summary.output);
    expect(cleaned.rows[0]).toEqual(['email', ...RESULT_HEADER]);
    expect(cleaned.rows.slice(1).map((r) => r[0])).toEqual(['ada@example.com', 'bob@example.org', 'carol@example.net']);
    expect((await readCsvFile(summary.removedOutput)).rows.slice(1).map((r) => [r[0], r[1], r[3]])).toEqual([['not-an-address', 'invalid', 'syntax']]);
  });

  it('refreshes result columns in place when a cleaned file is cleaned again', async () => {
    const input = await writePeople();
    const first = new FileConnector({ input });
    await runInOrder(first);
    const once = await first.finish();
    const second = new FileConnector({ input: once.output, output: tmp.file('twice.csv'), removedOutput: tmp.file('twice.removed.csv'), summaryOutput: tmp.file('twice.json') });
    await runInOrder(second);
    const twice = await second.finish();
    const a = await readCsvFile(once.output);
    const b = await readCsvFile(twice.output);
    expect(b.rows[0]).toEqual(a.rows[0]);
    expect(b.rows).toEqual(a.rows);
  });
});

describe('CSV records as written', () => {
  // Cells that need quoting in one dialect or another: delimiters, quotes, CR, LF, CRLF, and ones that need none.
  const PIECES = ['a', ',', ';', '\t', '|', '"', '""', '\n', '\r', '\r\n', ' ', 'é', '=1+1', ''];

  it.each([',', ';', '\t', '|'])('every cell reads back unchanged with %j as the delimiter', (delimiter) => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const rows = Array.from({ length: 300 }, () => Array.from({ length: 1 + Math.floor(next() * 5) }, () => Array.from({ length: Math.floor(next() * 4) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('')));
    const text = rows.map((cells) => csvRecord(cells, delimiter)).join('');
    expect(parse(text, { delimiter, relax_column_count: true })).toEqual(rows.map((cells) => (cells.length === 1 && cells[0] === '' ? [''] : cells)));
  });

  it('writes booleans, numbers, dates and empty cells as the cleaned file has them', () => {
    expect(csvRecord([true, false, 87, null, new Date('2026-01-02T03:04:05.000Z'), 'x'], ',')).toBe('true,false,87,,2026-01-02T03:04:05.000Z,x\n');
  });
});
