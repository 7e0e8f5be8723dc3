import { writeFile } from 'node:fs/promises';
import { InputError } from '@verify-hub/core';
import { FileConnector } from '@verify-hub/connector-file';
import { fakeVerify, pullAll, readCsvFile, RESULT_HEADER, resultsFor, runInOrder, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

const contactsOf = async (connector: FileConnector) => (await pullAll(connector)).flatMap((p) => p.contacts);

/** Each written row's input cells, as the cleaned file has them (contacts carry no cells: the output re-reads the input). */
async function cleanedCells(connector: FileConnector, delimiter = ','): Promise<string[][]> {
  await runInOrder(connector);
  const summary = await connector.finish();
  const out = await readCsvFile(summary.output, delimiter);
  return out.rows.slice(1).map((r) => r.slice(0, r.length - RESULT_HEADER.length));
}

describe('reading delimited files', () => {
  it('handles a UTF-8 BOM: the first header is clean and the outputs keep the BOM', async () => {
    const input = await tmp.copy('bom.csv');
    const connector = new FileConnector({ input });
    const info = await connector.inspect();
    expect(info.columns).toEqual(['email', 'first_name']);
    expect(info.emailColumn).toBe('email');
    await runInOrder(connector);
    const summary = await connector.finish();
    const out = await readCsvFile(summary.output);
    expect(out.bom).toBe(true);
    expect(out.rows[0]!.slice(0, 2)).toEqual(['email', 'first_name']);
    expect(out.rows.slice(1).map((r) => r[0])).toEqual(['ada@example.com', 'bob@example.org']);
  });

  it.each([
    ['semicolon.csv', ';', ['ada@example.com', 'ada2@example.com', 'bob@example.org']],
    ['tab.tsv', '\t', ['ada@example.com', 'bob@example.org']],
  ])('detects the delimiter of %s and writes the output with it', async (fixture, delimiter, emails) => {
    const input = await tmp.copy(fixture);
    const connector = new FileConnector({ input });
    expect((await connector.inspect()).delimiter).toBe(delimiter);
    await runInOrder(connector);
    const summary = await connector.finish();
    const out = await readCsvFile(summary.output, delimiter);
    expect(out.rows.slice(1).map((r) => r[1])).toEqual(emails);
    expect(out.rows[0]!.length).toBe(3 + RESULT_HEADER.length);
  });

  it.each([
    [',', 'name,email\n"Doe,J",j@example.com\nAl,al@example.org\n'],
    [';', 'name;email\n"Doe;J";j@example.com\nAl;al@example.org\n'],
    ['\t', 'name\temail\n"Doe\tJ"\tj@example.com\nAl\tal@example.org\n'],
    ['|', 'name|email\n"Doe|J"|j@example.com\nAl|al@example.org\n'],
  ])('detects %j in a .csv file, delimiters inside quotes included', async (delimiter, text) => {
    const input = tmp.file('people.csv');
    await writeFile(input, text);
    const connector = new FileConnector({ input });
    expect((await connector.inspect()).delimiter).toBe(delimiter);
    const contacts = await contactsOf(connector);
    expect(contacts.map((c) => c.email)).toEqual(['j@example.com', 'al@example.org']);
    expect((await cleanedCells(new FileConnector({ input }), delimiter))[0]).toEqual([`Doe${delimiter}J`, 'j@example.com']);
  });

  it('keeps quoted commas, quotes and newlines in cells, and writes them back quoted', async () => {
    const input = await tmp.copy('quoted.csv');
    const connector = new FileConnector({ input });
    expect((await contactsOf(new FileConnector({ input }))).map((c) => [c.id, c.email])).toEqual([
      ['1', 'jane@example.com'],
      ['2', 'jo@example.org'],
      ['3', 'info@example.net'],
    ]);
    // readCsvFile parses the written file again: the cells come back whole only if they were quoted right.
    expect(await cleanedCells(connector)).toEqual([
      ['1', 'Doe, Jane', 'jane@example.com', 'line one\nline two'],
      ['2', 'Smith "Jo"', 'jo@example.org', 'plain'],
      ['3', 'Comma, "and" quote', 'info@example.net', 'a,b\nc'],
    ]);
  });

  it('reads a Windows-1252 file (Excel’s plain CSV) and writes UTF-8 with a BOM', async () => {
    const input = tmp.file('latin.csv');
    // "Müller", the euro sign and curly quotes are single bytes in Windows-1252 (0xFC, 0x80, 0x93, 0x94).
    await writeFile(input, Buffer.concat([Buffer.from('name;email;note\nM'), Buffer.from([0xfc]), Buffer.from('ller;m@example.com;'), Buffer.from([0x80]), Buffer.from(' 5 '), Buffer.from([0x93]), Buffer.from('ok'), Buffer.from([0x94]), Buffer.from('\n')]));
    const connector = new FileConnector({ input });
    expect(await connector.inspect()).toMatchObject({ delimiter: ';', encoding: 'windows-1252' });
    const contacts = await contactsOf(connector);
    expect(contacts.map((c) => c.email)).toEqual(['m@example.com']);
    await connector.write(resultsFor(contacts), {});
    const summary = await connector.finish();
    const out = await readCsvFile(summary.output, ';');
    expect(out.bom).toBe(true);
    expect(out.rows[1]!.slice(0, 3)).toEqual(['Müller', 'm@example.com', '€ 5 “ok”']);
  });

  it('reports broken rows by line number and goes on with the rest', async () => {
    const input = await tmp.copy('broken.csv');
    const connector = new FileConnector({ input });
    const pages = await pullAll(connector);
    expect(pages.flatMap((p) => p.contacts).map((c) => c.email)).toEqual(['a@example.com', 'c@example.com', 'f@example.com']);
    expect(pages.reduce((n, p) => n + (p.skipped?.unparseable ?? 0), 0)).toBe(3);
    expect(connector.problems.map((p) => p.line)).toEqual([3, 5, 6]);
    expect(connector.problems[0]!.message).toMatch(/expected 3, got 2/);
    expect(connector.problems[1]!.message).toMatch(/never closed/);
    for (const page of pages) await connector.write(page.contacts.map((contact) => ({ contact, verification: fakeVerify(contact.email) })), {});
    const summary = await connector.finish();
    expect(summary.skipped.unparseable).toBe(3);
    expect(summary.problems.map((p) => p.line)).toEqual([3, 5, 6]);
    const out = await readCsvFile(summary.output);
    expect(out.rows.slice(1).map((r) => r[0])).toEqual(['1', '3', '6']);
  });

  it('a quote that would swallow several lines costs only its own line: the well-formed lines after it are read', async () => {
    const input = tmp.file('span.csv');
    await writeFile(input, 'a,email\n\n1,x@example.com\n\n\n3,"4\n5,6\n\n"7,8\n9,y@example.com\n');
    const connector = new FileConnector({ input });
    const contacts = await contactsOf(connector);
    expect(contacts.map((c) => [c.id, c.email])).toEqual([['1', 'x@example.com'], ['2', '6'], ['3', 'y@example.com']]);
    expect(connector.problems).toEqual([
      { line: 6, message: expect.stringMatching(/never closed \(it ran over lines 6-9\)/) },
      { line: 9, message: expect.stringMatching(/never closed/) },
    ]);
  });

  it('keeps a cell with line breaks that is quoted right, and reports it whole when its record has the wrong width', async () => {
    const input = tmp.file('multiline.csv');
    await writeFile(input, 'name,email,note\nA,a@example.com,"two\nlines, ""quoted"""\nB,b@example.com,"three\nmore\nlines",extra\nC,c@example.com,ok\n');
    const connector = new FileConnector({ input });
    const contacts = await contactsOf(connector);
    expect(contacts.map((c) => [c.id, c.email])).toEqual([
      ['1', 'a@example.com'],
      ['2', 'c@example.com'],
    ]);
    expect((await cleanedCells(new FileConnector({ input }))).map((cells) => cells[2])).toEqual(['two\nlines, "quoted"', 'ok']);
    expect(connector.problems).toEqual([{ line: 4, message: 'wrong number of fields: expected 3, got 4 (a record over lines 4-6)' }]);
  });

  it('a quote left open and closed only by a stray quote lines later costs its own line: the good rows it swallowed are read', async () => {
    const input = tmp.file('stray.csv');
    // Line 3 opens a quote it never closes; line 4 is a good row whose note ends with a stray quote.
    await writeFile(input, 'name,email,note\nA,a@example.com,ok\nB,b@example.com,"never closed\nC,c@example.com,6" tall\nD,d@example.com,"two\nlines"\n');
    const connector = new FileConnector({ input });
    const contacts = await contactsOf(connector);
    expect(contacts.map((c) => [c.id, c.email])).toEqual([
      ['1', 'a@example.com'],
      ['2', 'c@example.com'],
      ['3', 'd@example.com'],
    ]);
    expect((await cleanedCells(new FileConnector({ input }))).map((cells) => cells[2])).toEqual(['ok', '6" tall', 'two\nlines']);
    expect(connector.problems).toEqual([{ line: 3, message: expect.stringMatching(/^a quote opened on this line is never closed \(it ran over lines 3-4\)/) }]);
  });
});

describe('the email column', () => {
  it.each([
    ['E-Mail Address', 'Name,E-Mail Address\nA,a@example.com\n'],
    ['Mail', 'Mail,Name\na@example.com,A\n'],
    ['work_email', 'id,work_email\n1,a@example.com\n'],
  ])('is found by its header name (%s)', async (name, text) => {
    const input = tmp.file('h.csv');
    await writeFile(input, text);
    const info = await new FileConnector({ input }).inspect();
    expect(info.emailColumn).toBe(name);
    expect(info.hasHeader).toBe(true);
  });

  it('is found by its values when no header names it', async () => {
    const input = await tmp.copy('unnamed-email.csv');
    const connector = new FileConnector({ input });
    const info = await connector.inspect();
    expect(info.emailColumn).toBe('Contact');
    expect(info.emailColumnIndex).toBe(1);
    const pages = await pullAll(connector);
    expect(pages.flatMap((p) => p.contacts).map((c) => c.email)).toEqual(['ada@example.com', 'bob@example.org', 'carol@example.net']);
    expect(pages.reduce((n, p) => n + (p.skipped?.no_email ?? 0), 0)).toBe(1);
  });

  it('reads a headerless list of addresses: every line is a row', async () => {
    const input = await tmp.copy('headerless.txt');
    const connector = new FileConnector({ input });
    const info = await connector.inspect();
    expect(info).toMatchObject({ hasHeader: false, emailColumn: 'email', rowCount: 4 });
    const contacts = (await pullAll(connector)).flatMap((p) => p.contacts);
    expect(contacts.map((c) => [c.id, c.email])).toEqual([['1', 'ada@example.com'], ['2', 'bob@example.org'], ['3', 'not-an-address'], ['4', 'carol@example.net']]);
  });

  it('follows --column by header name (any case) and by 1-based index', async () => {
    const input = tmp.file('two.csv');
    await writeFile(input, 'Email,Backup\nmain@example.com,backup@example.com\n');
    const byName = await contactsOf(new FileConnector({ input, column: 'BACKUP' }));
    const byIndex = await contactsOf(new FileConnector({ input, column: '2' }));
    const detected = await contactsOf(new FileConnector({ input }));
    expect(byName.map((c) => c.email)).toEqual(['backup@example.com']);
    expect(byIndex.map((c) => c.email)).toEqual(['backup@example.com']);
    expect(detected.map((c) => c.email)).toEqual(['main@example.com']);
  });

  it('refuses a --column that is not there, naming the columns', async () => {
    const input = await tmp.copy('semicolon.csv');
    for (const column of ['Phone', '4', '0']) {
      const error = await new FileConnector({ input, column }).inspect().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).field).toBe('column');
      expect((error as Error).message).toContain('1:Name, 2:Email, 3:City');
    }
  });

  it('refuses a file without any email column, pointing at --column', async () => {
    const input = tmp.file('none.csv');
    await writeFile(input, 'name,city\nAda,Paris\nBob,Nice\n');
    const error = await new FileConnector({ input }).inspect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(/--column/);
  });
});
