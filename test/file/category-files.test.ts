import { readFile, readdir, writeFile } from 'node:fs/promises';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { ledgerCategory, normalizeEmail, rowFlags, VerificationSchema, type Risk, type Verification } from '@verify-hub/core';
import { CATEGORY_FILES, FileConnector, categoryOutput, resolveOptions, type CategoryFile } from '@verify-hub/connector-file';
import { LEDGER_FILE_ROWS, ledgerFileText, ledgerTruth } from './ledger-file';
import { pullAll, readCsvFile, RESULT_HEADER, tempDir } from './helpers';

/**
 * The fake engine's rule (risk by local part) plus flags with a known count: risky rows with an even
 * number are disposable, odd ones catch-all; s50, s100, ... and invalid550 (every 50th) are role addresses.
 */
function verify(email: string): Verification {
  const n = normalizeEmail(email);
  const local = n.ok ? n.localPart : '';
  const risk: Risk = !n.ok || local.startsWith('invalid') ? 'invalid' : local.startsWith('risky') ? 'risky' : local.startsWith('unknown') ? 'unknown' : 'safe';
  const number = Number(local.replace(/\D/g, ''));
  return VerificationSchema.parse({
    email,
    normalized: n.ok ? n.normalized : email,
    score: { safe: 90, risky: 50, invalid: 5, unknown: 0 }[risk],
    risk,
    reason: { safe: 'deliverable', risky: 'catch_all', invalid: n.ok ? 'mailbox_not_found' : 'syntax', unknown: 'smtp_timeout' }[risk],
    checks: {
      syntax: n.ok,
      mx: n.ok || null,
      smtp: null,
      smtpCheck: null,
      disposable: risk === 'risky' && number % 2 === 0,
      roleAccount: /^(s|invalid)\d+$/.test(local) && number % 50 === 0,
      catchAll: risk === 'risky' && number % 2 === 1,
      freeProvider: false,
      spamTrapRisk: 'none',
      typoSuggestion: local === 's7' ? 'example.org' : null,
    },
    checkedAt: '2026-01-02T03:04:05.000Z',
    billable: risk !== 'unknown' && n.ok,
  });
}

/** Known flag counts of ledgerFileText() under verify(): risky402..500 even/odd; s50..s400 and invalid550, each once more as a repeat row (s50, invalid550). */
const FLAG_TRUTH = { role: 8 + 1 + 1 + 1, disposable: 50, catch_all: 50 };

/** Each data row's name (the first column), final category and flags, in input order, as the file and verify() say. */
function expectedRows(text: string): { name: string; categories: CategoryFile[] }[] {
  const records = parse(text, { relax_column_count: true, from_line: 2 }) as string[][];
  return records
    .filter((r) => r.length === 2)
    .map(([name, email]) => {
      if (!email) return { name: name!, categories: ['not_checked'] };
      const v = verify(email);
      return { name: name!, categories: [ledgerCategory(v.risk, v.reason), ...rowFlags(v)] as CategoryFile[] };
    });
}

async function xlsxRows(path: string): Promise<string[][]> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  const rows: string[][] = [];
  book.worksheets[0]!.eachRow({ includeEmpty: false }, (row) => {
    const values = (row.values as unknown[]).slice(1);
    rows.push(Array.from({ length: rows[0]?.length ?? values.length }, (_, i) => (values[i] === null || values[i] === undefined ? '' : String(values[i]))));
  });
  return rows;
}

describe('per-category files (split)', () => {
  it('writes each category and flag, in CSV and .xlsx, with exactly its rows in input order; counts equal the ledger', async () => {
    const tmp = await tempDir();
    try {
      const input = tmp.file('list.csv');
      const text = ledgerFileText();
      await writeFile(input, text);
      const connector = new FileConnector({ input, split: true, pageSize: 300 });
      const pages = await pullAll(connector);
      // Pages written last first: the files still come out in input order.
      for (const page of [...pages].reverse()) await connector.write(page.contacts.map((contact) => ({ contact, verification: verify(contact.email) })));
      const summary = await connector.finish();
      expect(summary.ledger).toEqual(ledgerTruth(999));
      expect(summary.flags).toEqual(FLAG_TRUTH);

      const expected = expectedRows(text);
      expect(expected).toHaveLength(LEDGER_FILE_ROWS - 1);
      const header = ['name', 'email', ...RESULT_HEADER];
      const options = resolveOptions({ input });
      for (const name of CATEGORY_FILES) {
        const count = name in summary.flags ? summary.flags[name as keyof typeof summary.flags] : summary.ledger[name as keyof typeof summary.ledger];
        const names = expected.filter((row) => row.categories.includes(name)).map((row) => row.name);
        expect(names).toHaveLength(count);
        const csvPath = categoryOutput(options, name, 'csv');
        expect(summary.categoryOutputs?.[name]).toEqual({ csv: csvPath, xlsx: categoryOutput(options, name, 'xlsx') });
        const csv = (await readCsvFile(csvPath)).rows;
        const xlsx = await xlsxRows(categoryOutput(options, name, 'xlsx'));
        expect(csv[0]).toEqual(header);
        expect(csv.slice(1).map((row) => row[0])).toEqual(names);
        // The workbook holds the same cells as the CSV.
        expect(xlsx).toEqual(csv);
        const risks = new Set(csv.slice(1).map((row) => row[2]));
        if (name === 'safe' || name === 'risky' || name === 'invalid' || name === 'unknown') expect([...risks]).toEqual([name]);
      }
      // The typo suggestion is in the category file, as in the cleaned one.
      const safe = (await readCsvFile(categoryOutput(options, 'safe', 'csv'))).rows;
      expect(safe.find((row) => row[1] === 's7@example.com')?.at(-1)).toBe('s7@example.org');
      // The summary JSON names the files, never their folder.
      const json = JSON.parse(await readFile(options.summaryOutput, 'utf8')) as { categoryOutputs: Record<string, { csv: string }> };
      expect(json.categoryOutputs.invalid!.csv).toBe('list.invalid.csv');
      expect((await readdir(tmp.dir)).sort()).toContain('list.catch_all.xlsx');
    } finally {
      await tmp.cleanup();
    }
  }, 60_000);

  it('writes no file for a category without rows, none without split, and none on a dry run', async () => {
    const tmp = await tempDir();
    try {
      const input = tmp.file('small.csv');
      await writeFile(input, 'email\ns1@example.com\ninvalid2@example.com\n');
      for (const options of [{ split: true }, {}, { split: true, dryRun: true }]) {
        const connector = new FileConnector({ input, ...options });
        for (const page of await pullAll(connector)) await connector.write(page.contacts.map((contact) => ({ contact, verification: verify(contact.email) })));
        const summary = await connector.finish();
        const files = (await readdir(tmp.dir)).filter((f) => /\.(safe|invalid|risky|role)\.(csv|xlsx)$/.test(f)).sort();
        if (options.split && !('dryRun' in options)) {
          expect(Object.keys(summary.categoryOutputs ?? {}).sort()).toEqual(['invalid', 'safe']);
          expect(files).toEqual(['small.invalid.csv', 'small.invalid.xlsx', 'small.safe.csv', 'small.safe.xlsx']);
        } else {
          expect(summary.categoryOutputs).toBeUndefined();
        }
      }
    } finally {
      await tmp.cleanup();
    }
  });

  it('writes a re-check run\'s files beside the first run\'s, tagged with its id, never over them', async () => {
    const tmp = await tempDir();
    try {
      const input = tmp.file('again.csv');
      await writeFile(input, 'email\ns1@example.com\nunknown2@example.com\n');
      const first = new FileConnector({ input, split: true });
      for (const page of await pullAll(first)) await first.write(page.contacts.map((contact) => ({ contact, verification: verify(contact.email) })));
      await first.finish();
      const recheck = new FileConnector({ input, split: true });
      recheck.bindRun('run-2');
      // The re-check finds the unknown address safe now.
      const safeNow = (email: string): Verification => ({ ...verify(email.replace('unknown', 's')), email, normalized: email });
      const scope = { kind: 'recheck', value: 'run-1' };
      for (const page of await pullAll(recheck, scope)) await recheck.write(page.contacts.map((contact) => ({ contact, verification: safeNow(contact.email) })));
      const summary = await recheck.finish();
      expect(Object.keys(summary.categoryOutputs ?? {})).toEqual(['safe']);
      expect(summary.categoryOutputs?.safe?.csv).toBe(tmp.file('again.safe.recheck-run-2.csv'));
      expect((await readCsvFile(tmp.file('again.safe.recheck-run-2.csv'))).rows.map((r) => r[0])).toEqual(['email', 's1@example.com', 'unknown2@example.com']);
      // The first run's files stay as they were.
      expect((await readCsvFile(tmp.file('again.unknown.csv'))).rows.map((r) => r[0])).toEqual(['email', 'unknown2@example.com']);
      expect((await readCsvFile(tmp.file('again.safe.csv'))).rows.map((r) => r[0])).toEqual(['email', 's1@example.com']);
    } finally {
      await tmp.cleanup();
    }
  });

  it('keeps an .xlsx input\'s cell types in the .xlsx category file, and writes them as text in the CSV', async () => {
    const tmp = await tempDir();
    try {
      const input = tmp.file('book.xlsx');
      const book = new ExcelJS.Workbook();
      const sheet = book.addWorksheet('People');
      sheet.addRow(['email', 'age', 'since']);
      sheet.addRow(['invalid1@example.com', 41, new Date('2020-05-06T00:00:00.000Z')]);
      sheet.addRow(['s2@example.com', 7, new Date('2021-01-01T00:00:00.000Z')]);
      await writeFile(input, Buffer.from(await book.xlsx.writeBuffer()));
      const connector = new FileConnector({ input, split: true });
      for (const page of await pullAll(connector)) await connector.write(page.contacts.map((contact) => ({ contact, verification: verify(contact.email) })));
      await connector.finish();
      const out = new ExcelJS.Workbook();
      await out.xlsx.readFile(tmp.file('book.invalid.xlsx'));
      const row = out.worksheets[0]!.getRow(2);
      expect(row.getCell(2).value).toBe(41);
      expect((row.getCell(3).value as Date).toISOString()).toBe('2020-05-06T00:00:00.000Z');
      const csv = (await readCsvFile(tmp.file('book.invalid.csv'))).rows;
      expect(csv[1]!.slice(0, 4)).toEqual(['invalid1@example.com', '41', '2020-05-06T00:00:00.000Z', 'invalid']);
    } finally {
      await tmp.cleanup();
    }
  });
});
