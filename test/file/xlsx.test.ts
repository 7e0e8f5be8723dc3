import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { readdir, writeFile } from 'node:fs/promises';
import { FileConnector } from '@verify-hub/connector-file';
import { expectedResultCells, expectedRisk, fakeVerify, pullAll, RESULT_HEADER, resultsFor, runInOrder, tempDir } from './helpers';

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => (tmp = await tempDir()));
afterEach(async () => tmp.cleanup());

const JOINED = new Date(Date.UTC(2024, 4, 6, 0, 0, 0));

// Workbooks are written with writeBuffer, not exceljs's writeFile: that resolves once the zip is handed to
// the file stream and ends the stream then, and on a loaded machine the file was cut before its last part
// (xl/workbook.xml), which the reader then met as a TypeError (issue 30).

/** A workbook like a CRM export: typed cells, a rich-text cell, a hyperlink, an empty email, a second sheet that is ignored. */
async function writeWorkbook(name: string, extraRows = 0): Promise<string> {
  const path = tmp.file(name);
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Contacts');
  sheet.addRow(['Name', 'Email Address', 'Age', 'Joined', 'VIP']);
  sheet.addRow([{ richText: [{ text: 'Ada ' }, { text: 'Lovelace', font: { bold: true } }] }, 'ada@example.com', 36, JOINED, true]);
  sheet.addRow(['Bad Bob', { text: 'bad.bob@example.org', hyperlink: 'mailto:bad.bob@example.org' }, 41, JOINED, false]);
  sheet.addRow(['No Mail', null, 50, null, false]);
  sheet.addRow(['Info Desk', 'info@example.net', null, null, null]);
  for (let i = 0; i < extraRows; i++) sheet.addRow([`Person ${i}`, `person${i}@example.com`, i, null, i % 2 === 0]);
  workbook.addWorksheet('Other').addRow(['not', 'read']);
  await writeFile(path, Buffer.from(await workbook.xlsx.writeBuffer()));
  return path;
}

async function readSheet(path: string): Promise<{ name: string; rows: unknown[][] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const sheet = workbook.worksheets[0]!;
  const rows: unknown[][] = [];
  sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
  return { name: sheet.name, rows };
}

describe('.xlsx in and out', () => {
  it('reads the first worksheet with typed cells and detects the email column', async () => {
    const input = await writeWorkbook('crm.xlsx');
    const connector = new FileConnector({ input });
    const info = await connector.inspect();
    expect(info).toMatchObject({ columns: ['Name', 'Email Address', 'Age', 'Joined', 'VIP'], emailColumn: 'Email Address', rowCount: 4, hasHeader: true });
    const pages = await pullAll(connector);
    expect(pages.flatMap((p) => p.contacts)).toEqual([
      { id: '1', email: 'ada@example.com' },
      { id: '2', email: 'bad.bob@example.org' },
      { id: '4', email: 'info@example.net' },
    ]);
    expect(pages[0]!.skipped).toEqual({ no_email: 1, unparseable: 0 });
  });

  it('reads a workbook the same way every time, its worksheet before its shared strings as Excel writes it', async () => {
    // exceljs's streaming reader, given the parts in that order, went wrong in about 7 % of reads on a
    // loaded machine (connectors/file/src/xlsx-order.ts): addresses as "[object Object]", a TypeError.
    // At the rates measured before the fix (1-7 %), 150 reads with no failure had a chance of 5 % at most.
    const input = await writeWorkbook('crm.xlsx');
    const emails = new Set<string>();
    for (let read = 0; read < 150; read++) {
      const pages = await pullAll(new FileConnector({ input }));
      emails.add(pages.flatMap((p) => p.contacts.map((c) => c.email)).join(','));
    }
    expect([...emails]).toEqual(['ada@example.com,bad.bob@example.org,info@example.net']);
  }, 120_000);

  it('writes cleaned and removed workbooks: same sheet name, original columns, then the result columns', async () => {
    const input = await writeWorkbook('crm.xlsx');
    const connector = new FileConnector({ input });
    await runInOrder(connector);
    const summary = await connector.finish();
    expect(summary.output).toBe(tmp.file('crm.cleaned.xlsx'));
    expect(summary.counts).toEqual({ safe: 1, risky: 1, invalid: 1, unknown: 0 });
    expect(expectedRisk('bad.bob@example.org')).toBe('invalid');

    const cleaned = await readSheet(summary.output);
    const removed = await readSheet(summary.removedOutput);
    expect(cleaned.name).toBe('Contacts');
    expect(cleaned.rows[0]).toEqual(['Name', 'Email Address', 'Age', 'Joined', 'VIP', ...RESULT_HEADER]);
    expect(removed.rows[0]).toEqual(cleaned.rows[0]);
    expect(cleaned.rows.slice(1).map((r) => r[1] ?? '')).toEqual(['ada@example.com', '', 'info@example.net']);
    expect(removed.rows.slice(1).map((r) => r[1])).toEqual(['bad.bob@example.org']);
    // Numbers, dates and booleans keep their types; result cells are core's write-back values.
    const ada = cleaned.rows[1]!;
    expect(ada.slice(0, 5)).toEqual(['Ada Lovelace', 'ada@example.com', 36, JOINED, true]);
    // An empty last cell (no typo suggestion) is not stored in the sheet: read it as empty.
    expect(Array.from(RESULT_HEADER, (_, i) => ada[5 + i] ?? '')).toEqual(Object.values(pick(expectedResultCells(fakeVerify('ada@example.com')), RESULT_HEADER)));
    expect((await readdir(tmp.dir)).sort()).toEqual(['crm.cleaned.xlsx', 'crm.rejected_rows.csv', 'crm.removed.xlsx', 'crm.summary.json', 'crm.xlsx']);
  });

  it('streams a larger workbook in pages and keeps the order of out-of-order writes', async () => {
    const input = await writeWorkbook('big.xlsx', 2_000);
    const connector = new FileConnector({ input, pageSize: 500 });
    const pages = await pullAll(connector);
    expect(pages.length).toBe(5);
    for (const page of [...pages].reverse()) await connector.write(resultsFor(page.contacts), {});
    const summary = await connector.finish();
    expect(summary.rows).toBe(2_004);
    const cleaned = await readSheet(summary.output);
    const names = cleaned.rows.map((r) => r[0]).filter((n) => String(n).startsWith('Person'));
    expect(names).toEqual(Array.from({ length: 2_000 }, (_, i) => `Person ${i}`));
  });

  it('reads the first worksheet that has rows when the first ones are empty', async () => {
    const input = tmp.file('second.xlsx');
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Cover');
    const sheet = workbook.addWorksheet('People');
    sheet.addRow(['email']);
    sheet.addRow(['ada@example.com']);
    await writeFile(input, Buffer.from(await workbook.xlsx.writeBuffer()));
    const connector = new FileConnector({ input });
    expect((await pullAll(connector)).flatMap((p) => p.contacts.map((c) => c.email))).toEqual(['ada@example.com']);
    await connector.write(resultsFor((await pullAll(connector)).flatMap((p) => p.contacts)), {});
    expect((await readSheet((await connector.finish()).output)).name).toBe('People');
  });

  it('refuses an .xlsx over the row limit', async () => {
    const input = await writeWorkbook('limit.xlsx', 10);
    await expect(new FileConnector({ input, maxRows: 10 }).inspect()).rejects.toThrow(/more than 10 data rows.*--max-rows/);
  });

  it('reports a file that is not a workbook as an input error', async () => {
    const input = tmp.file('fake.xlsx');
    await (await import('node:fs/promises')).writeFile(input, 'email\na@example.com\n');
    await expect(new FileConnector({ input }).inspect()).rejects.toMatchObject({ field: 'input', message: expect.stringMatching(/could not be read as an \.xlsx workbook/) });
  });

  it('reads a workbook whose parts come in another order: the workbook part after the sheet, the shared strings before it (issue 30)', async () => {
    // The zip's order is the writer's choice. This one made exceljs's reader name the sheet from a workbook
    // part not read yet (TypeError: Cannot read properties of undefined (reading 'sheets')).
    const book = new ExcelJS.Workbook();
    book.addWorksheet('People').addRows([['email', 'name'], ['ada@example.com', 'Ada'], ['bob@example.org', 'Bob']]);
    const written = await JSZip.loadAsync(await book.xlsx.writeBuffer());
    const names = Object.keys(written.files).filter((n) => !written.files[n]!.dir);
    const first = ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/worksheets/sheet1.xml'];
    expect(names).toEqual(expect.arrayContaining(first));
    const reordered = new JSZip();
    for (const name of [...first, ...names.filter((n) => !first.includes(n) && n !== 'xl/workbook.xml'), 'xl/workbook.xml']) {
      reordered.file(name, await written.file(name)!.async('nodebuffer'));
    }
    const input = tmp.file('reordered.xlsx');
    await writeFile(input, await reordered.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
    const connector = new FileConnector({ input });
    expect((await pullAll(connector)).flatMap((p) => p.contacts.map((c) => c.email))).toEqual(['ada@example.com', 'bob@example.org']);
  });

  it('a workbook cut short (an upload that stopped) fails with an input error naming the file, not a TypeError', async () => {
    const book = new ExcelJS.Workbook();
    book.addWorksheet('People').addRows([['email'], ...Array.from({ length: 2_000 }, (_, i) => [`p${i}@example.com`])]);
    const whole = Buffer.from(await book.xlsx.writeBuffer());
    const input = tmp.file('cut.xlsx');
    await writeFile(input, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const error = await pullAll(new FileConnector({ input })).then(() => undefined, (e: unknown) => e as Error & { field?: string });
    expect(error).toMatchObject({ field: 'input', message: expect.stringContaining('cut.xlsx') });
    expect(error!.message).not.toMatch(/reading 'sheets'/);
  });
});

function pick(values: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, values[n]!]));
}
