import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cli } from '../cli/run-cli';
import { ledgerFileRows, ledgerFileText, ledgerTruth } from '../file/ledger-file';
import { INSTALL_HINT, VIEWPORT, browserPolicy, launchBrowser, parseCsv, signIn, startStack, tabUntil, until, type Stack } from './harness';
import { signatureFor } from '../fakes/mailchimp/fake-webhooks';

/**
 * The dashboard in a real browser against the real hub (`verify-hub serve`: pipeline, workers, sessions)
 * with the fake engine and FakeHubSpot behind it. One browser and one hub for the file; each scenario
 * gets its own browser context (its own cookies), so they do not lean on each other's sign-in.
 */

jest.setTimeout(120_000);

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const PORTAL = { portalId: '4242', token: 'pat-e2e-private-app-token' };
const MAILCHIMP = { apiKey: `${'5'.repeat(32)}-us7`, listId: 'e2eaudience', oauthToken: 'mc-e2e-oauth-token' };
const SCREENSHOTS = join(__dirname, '..', '..', 'test-output', 'e2e');

/**
 * The list to clean: the fake engine answers by the local part's first word (invalid.*, risky.*,
 * unknown.*, else safe). Row 13 repeats row 1's address (its domain in capitals), row 10 has no address, and a
 * line of empty cells (dropped by the reader) sits between rows 15 and 16.
 */
const LIST: [name: string, email: string, company: string][] = [
  ['Ada', 'ada@example.com', 'Acme'],
  ['Bob', 'bob@example.org', 'Beta'],
  ['Mallory', 'invalid.mallory@example.com', 'Evil'],
  ['Carol', 'carol@example.net', 'Gamma, Inc'],
  ['Ivan', 'risky.ivan@example.com', 'Delta'],
  ['Trent', 'unknown.trent@example.com', 'Echo'],
  ['Dave', 'dave@example.com', 'Foxtrot'],
  ['Oscar', 'invalid.oscar@example.com', 'Golf'],
  ['Erin', 'erin@example.com', 'Hotel'],
  ['Nobody', '', 'India'],
  ['Judy', 'risky.judy@example.com', 'Juliet'],
  ['Frank', 'frank@example.com', 'Kilo'],
  ['Ada again', 'ada@EXAMPLE.com', 'Lima'],
  ['Peggy', 'invalid.peggy@example.com', 'Mike'],
  ['Grace', 'grace@example.com', 'November'],
  ['Victor', 'unknown.victor@example.com', 'Oscar'],
  ['Heidi', 'heidi@example.com', 'Papa'],
  ['Niaj', 'niaj@example.com', 'Quebec'],
  ['Olivia', 'olivia@example.com', 'Romeo'],
  ['Sybil', 'invalid.sybil@example.com', 'Sierra'],
];
const riskOf = (email: string) => (/^(invalid|risky|unknown)/i.exec(email)?.[1]?.toLowerCase() ?? 'safe') as 'safe' | 'risky' | 'invalid' | 'unknown';
const withEmail = LIST.filter(([, email]) => email);
/** Per row: a repeated address counts on each of its rows. */
const EXPECTED_RISKS = { safe: 0, risky: 0, invalid: 0, unknown: 0 };
for (const [, email] of withEmail) EXPECTED_RISKS[riskOf(email)]++;
/** Addresses compare with their domain lower-cased (core's normalisation keeps the local part's case). */
const UNIQUE_ADDRESSES = new Set(withEmail.map(([, email]) => email.replace(/@.*$/, (domain) => domain.toLowerCase()))).size;

function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function listCsv(): string {
  const lines = ['name,email,company', ...LIST.map((row) => row.map(csvField).join(','))];
  lines.splice(16, 0, ',,');
  return `${lines.join('\n')}\n`;
}

/** The HubSpot portal's contacts (addresses of their own, so nothing comes from the file run's cache). */
const CONTACTS = ['hs.ann@example.com', 'hs.ben@example.com', 'risky.hs.cat@example.com', 'invalid.hs.dan@example.com', 'hs.eve@example.com', 'hs.fay@example.com', 'invalid.hs.gus@example.com', 'hs.hal@example.com'];

type Policy = ReturnType<typeof browserPolicy>;
const policy: Policy = browserPolicy();
if (policy === 'skip') {
  console.warn(`[e2e] skipped: ${INSTALL_HINT}. (CI=true or E2E_BROWSER_TESTS=required makes this a failure.)`);
}

const describeIfRun = policy === 'run' ? describe : describe.skip;

if (policy === 'fail') {
  describe('dashboard in a real browser', () => {
    it('needs Chromium', () => {
      throw new Error(`[e2e] ${INSTALL_HINT}`);
    });
  });
}

describeIfRun('dashboard in a real browser (hub + pipeline + fake engine + FakeHubSpot)', () => {
  let stack: Stack;
  let browser: Browser;
  let work: string;
  const contexts: BrowserContext[] = [];

  async function newPage(): Promise<Page> {
    // Reduced motion: the progress bar's fill has no transition, so the screenshot shows where it is.
    const context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true, reducedMotion: 'reduce' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.hub.url + '/');
    return page;
  }

  async function signedInPage(): Promise<Page> {
    const page = await newPage();
    await signIn(page, ADMIN_TOKEN);
    return page;
  }

  /** The status, percent and counters the run page shows. */
  async function runPageState(page: Page) {
    const counter = async (name: string) => Number((await page.getByTestId(`counter-${name}`).textContent())?.replace(/[^\d]/g, '') || NaN);
    return {
      status: (await page.getByTestId('run-status').textContent())?.trim(),
      percent: Number(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('aria-valuenow')),
      pulled: await counter('pulled'),
      verified: await counter('verified'),
      written: await counter('written'),
    };
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'vh-e2e-files-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    [stack, browser] = await Promise.all([startStack({ adminToken: ADMIN_TOKEN, portal: PORTAL, mailchimp: MAILCHIMP }), launchBrowser()]);
    stack.hubspot.addContacts(
      PORTAL.portalId,
      CONTACTS.map((email) => ({ email })),
    );
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('signs in with the admin token only: a wrong token is refused, the session is an HttpOnly cookie and the token is kept nowhere', async () => {
    const page = await newPage();
    await page.getByRole('heading', { name: 'Sign in to verify-hub' }).waitFor();
    const tokenInput = page.getByLabel('Admin token');
    expect(await tokenInput.getAttribute('type')).toBe('password');

    await tokenInput.fill('not-the-admin-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).not.toBe('');
    expect(await page.getByRole('heading', { name: 'Runs', exact: true }).count()).toBe(0);
    expect((await page.context().cookies()).filter((c) => c.name === 'vh_session')).toEqual([]);

    await tokenInput.fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const link of ['Runs', 'Clean a file', 'Connections', 'Schedules']) await nav.getByRole('link', { name: link }).waitFor();

    const session = (await page.context().cookies()).find((c) => c.name === 'vh_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(session!.value).not.toContain(ADMIN_TOKEN);
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    const storage = await page.evaluate<string>('JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })');
    expect(storage).not.toContain(ADMIN_TOKEN);

    // The cookie is the whole credential: a reload stays signed in, and the API answers it without a bearer token.
    await page.reload();
    await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
    expect(await page.evaluate<number>(`fetch('/api/session').then((r) => r.status)`)).toBe(200);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to verify-hub' }).waitFor();
    expect(await page.evaluate<number>(`fetch('/api/runs').then((r) => r.status)`)).toBe(401);
  });

  it('cleans an uploaded CSV: preview, estimate, live progress to 100, the cleaned and removed files, the risk chart', async () => {
    const input = join(work, 'contacts.csv');
    writeFileSync(input, listCsv());
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clean a file' }).click();
    await page.getByText('Drop a CSV or Excel file here').waitFor();
    await page.getByLabel('Choose a file').setInputFiles(input);

    const preview = page.getByRole('table', { name: 'Preview' });
    await preview.waitFor();
    const previewText = (await preview.textContent()) ?? '';
    for (const shown of ['name', 'email', 'company', 'ada@example.com', 'Bob']) expect(previewText).toContain(shown);
    expect(await page.getByLabel('Email column').inputValue()).toBe('email');
    const estimate = page.getByTestId('estimate');
    // A ceiling in credits and money (the stack's price is 1.20 per 1,000), saying what is free.
    const money = `$${(Math.round((UNIQUE_ADDRESSES * 1.2) / 10) / 100).toFixed(2)}`;
    await expect(estimate.textContent()).resolves.toContain(`At most ${UNIQUE_ADDRESSES} credits (≈ ${money}): duplicates, addresses already checked recently and unknown results are free.`);
    expect(await page.getByTestId('column-warning').count()).toBe(0);
    expect(await page.getByLabel('Also remove risky addresses').isChecked()).toBe(false);

    await page.getByRole('button', { name: 'Start cleaning' }).click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    const runId = decodeURIComponent(page.url().split('#/runs/')[1]!);
    // The run is named for people: by the file's name.
    await page.getByRole('heading', { name: 'contacts.csv' }).waitFor();

    // Live progress: the page polls, nobody reloads it.
    const final = await until(() => runPageState(page), (s) => s.status === 'completed' && s.percent === 100, 60_000);
    expect(final).toMatchObject({ status: 'completed', percent: 100, pulled: withEmail.length });
    // What it spent, in credits and money, as the hub words it; the estimate was a ceiling (unknown results are free).
    const spent = ((await (await stack.api(`/api/runs/${encodeURIComponent(runId)}`)).json()) as { spent: { credits: number; text: string }; counters: { credits: number } });
    expect(spent.spent.credits).toBe(spent.counters.credits);
    expect(spent.spent.credits).toBeLessThan(UNIQUE_ADDRESSES);
    expect(spent.spent.text).toMatch(/^\d+ credits? \(≈ /);
    expect(await page.getByTestId('run-spent').textContent()).toBe(`Spent: ${spent.spent.text}`);
    // Every pulled contact is done; the row without an address was skipped, not pulled.
    const progressText = await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('aria-valuetext');
    expect(progressText).toMatch(new RegExp(`\\b${withEmail.length} of ${withEmail.length}\\b`));
    expect(await page.getByTestId('counter-skipped').textContent()).toMatch(/\b1\b/);

    const chart = page.getByTestId('risk-chart');
    await chart.getByText('Risk distribution', { exact: true }).waitFor();
    const label = (await chart.getByRole('img').getAttribute('aria-label')) ?? '';
    const numbers = /(\d+) safe, (\d+) risky, (\d+) invalid, (\d+) unknown/.exec(label);
    expect(numbers?.slice(1).map(Number)).toEqual([EXPECTED_RISKS.safe, EXPECTED_RISKS.risky, EXPECTED_RISKS.invalid, EXPECTED_RISKS.unknown]);
    // The one ledger: every contact once, in its final category with a plain label (the row without an address is "Not checked").
    const ledger = page.getByRole('table', { name: /^Every contact, once/ });
    await ledger.waitFor();
    const ledgerRows = await ledger.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')?.textContent ?? '', Number((r.querySelector('td.num')?.textContent ?? '').replace(/,/g, ''))]));
    const expectedLedger = [['Safe', EXPECTED_RISKS.safe], ['Risky', EXPECTED_RISKS.risky], ['Invalid', EXPECTED_RISKS.invalid], ['Unknown', EXPECTED_RISKS.unknown], ['Not checked', LIST.length - withEmail.length]].filter(([, n]) => n);
    expect(ledgerRows).toEqual(expectedLedger);
    expect(await ledger.locator('caption').textContent()).toContain(`(${LIST.length} in all)`);
    await page.getByRole('table', { name: 'Reasons' }).waitFor();
    const reasons = (await page.getByRole('table', { name: 'Reasons' }).textContent()) ?? '';
    for (const reason of ['deliverable', 'mailbox_not_found', 'catch_all', 'smtp_timeout']) expect(reasons).toContain(reason);
    // Two addresses came back unknown and the run is over: they can be checked again.
    await page.getByRole('button', { name: 'Re-check unknowns' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'run-page.png'), fullPage: true });

    const download = async (name: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name }).click()]);
      return parseCsv(readFileSync((await file.path())!, 'utf8'));
    };
    const [header, ...cleaned] = await download('Download cleaned file');
    expect(header!.slice(0, 3)).toEqual(['name', 'email', 'company']);
    expect(header).toContain('ev_risk');
    const risk = header!.indexOf('ev_risk');
    // Every row but the invalid ones, in the input's order, with all their columns (the line of empty cells is dropped).
    const kept = LIST.filter(([, email]) => !email || riskOf(email) !== 'invalid');
    expect(cleaned.map((row) => row.slice(0, 3))).toEqual(kept);
    expect(cleaned.map((row) => row[risk])).toEqual(kept.map(([, email]) => (email ? riskOf(email) : '')));

    const [removedHeader, ...removed] = await download('Download removed rows');
    expect(removedHeader!.slice(0, 3)).toEqual(['name', 'email', 'company']);
    expect(removed.map((row) => row.slice(0, 3))).toEqual(LIST.filter(([, email]) => email && riskOf(email) === 'invalid'));

    // One click re-checks the unknowns: a run over just those, whose page opens.
    await page.getByRole('button', { name: 'Re-check unknowns' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/runs/') && !url.hash.endsWith(encodeURIComponent(runId)));
    const recheckId = decodeURIComponent(new URL(page.url()).hash.slice('#/runs/'.length));
    await page.getByRole('heading', { name: 'Re-check of contacts.csv' }).waitFor();
    expect(await (await stack.api(`/api/runs/${encodeURIComponent(recheckId)}`)).json()).toMatchObject({ platform: 'file', scope: `recheck:${runId}` });

    // The runs list shows it too, linking to its page.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByRole('link', { name: 'contacts.csv', exact: true }).waitFor();
    expect(await runs.getByRole('row').filter({ hasText: runId }).getByRole('link').getAttribute('href')).toBe(`#/runs/${encodeURIComponent(runId)}`);
    for (const column of ['Run', 'Source', 'Status', 'Started', 'Duration', 'Progress', 'Pulled', 'Verified', 'Written', 'Failed', 'Credits']) {
      await runs.getByRole('columnheader', { name: column, exact: true }).waitFor();
    }
  });

  it('cleans the 2,000-row file with known categories: downloads first, and the page, the CLI, summary.json and each category file agree with the truth', async () => {
    const input = join(work, 'known.csv');
    writeFileSync(input, ledgerFileText());
    const truth = ledgerTruth(999);
    const known = ledgerFileRows();
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clean a file' }).click();
    await page.getByLabel('Choose a file').setInputFiles(input);
    await page.getByRole('table', { name: 'Preview' }).waitFor();
    await page.getByRole('button', { name: 'Start cleaning' }).click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    const runId = decodeURIComponent(page.url().split('#/runs/')[1]!);
    await until(() => runPageState(page), (s) => s.status === 'completed', 90_000);

    // The downloads come first on a finished file run's page: the first section after the heading.
    const categories = page.getByRole('table', { name: /^By category/ });
    await categories.waitFor();
    expect((await page.locator('h2').allTextContents())[0]).toBe('Downloads');
    const tableRows = (table: typeof categories) => table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')?.textContent ?? '', Number((r.querySelector('td.num')?.textContent ?? '').replace(/,/g, ''))]));
    const byCategory = [['Safe', truth.safe], ['Risky', truth.risky], ['Invalid', truth.invalid], ['Unknown', truth.unknown], ['Not checked', truth.not_checked], ['Could not be read', truth.unreadable]];
    expect(await tableRows(categories)).toEqual(byCategory);
    expect(await tableRows(page.getByRole('table', { name: /^By flag/ }))).toEqual([['Role address', 0], ['Disposable', 0], ['Catch-all', truth.risky]]);
    const cleanedList = (await page.getByRole('region', { name: 'Downloads' }).locator('ul').textContent()) ?? '';
    expect(cleanedList).toContain(`Download cleaned file (${(truth.total - truth.invalid - truth.unreadable).toLocaleString('en-US')} rows: every row except the invalid ones)`);
    expect(cleanedList).toContain(`Download removed rows (${truth.invalid} rows: the invalid ones)`);
    // A list without rows has nothing to download.
    expect(await page.getByRole('link', { name: 'Download Role address rows as CSV' }).count()).toBe(0);

    // The run page's ledger ("Every contact, once") says the same.
    const ledger = page.getByRole('table', { name: /^Every contact, once/ });
    await ledger.waitFor();
    expect(await tableRows(ledger)).toEqual(byCategory);
    expect(await ledger.locator('caption').textContent()).toContain('(2,000 in all)');
    await page.screenshot({ path: join(SCREENSHOTS, 'run-page-downloads.png'), fullPage: true });

    // summary.json, downloaded from the page.
    const saved = async (name: string) => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name, exact: true }).click()]);
      return { name: file.suggestedFilename(), text: readFileSync((await file.path())!, 'utf8') };
    };
    const summary = JSON.parse((await saved('Download summary')).text);
    expect(summary.ledger).toEqual(truth);
    expect(summary.flags).toEqual({ role: 0, disposable: 0, catch_all: truth.risky });

    // Each category's file, from its link on the page: exactly that category's rows, in input order.
    for (const [label, category] of [['Invalid', 'invalid'], ['Unknown', 'unknown'], ['Not checked', 'not_checked'], ['Catch-all', 'catch_all']] as const) {
      const expected = known.filter((row) => row.category === category || row.flags.includes(category)).map((row) => row.name);
      const csv = await saved(`Download ${label} rows as CSV`);
      expect(csv.name).toBe(`known-${category.replace('_', '-')}.csv`);
      const [header, ...rows] = parseCsv(csv.text);
      expect(header!.slice(0, 3)).toEqual(['name', 'email', 'ev_risk']);
      expect(header).toContain('ev_did_you_mean');
      expect([label, rows.map((row) => row[0])]).toEqual([label, expected]);
      // The Excel link, fetched in the page (its session): the same rows.
      const href = await page.getByRole('link', { name: `Download ${label} rows as Excel` }).getAttribute('href');
      const bytes = await page.evaluate(async (url) => Array.from(new Uint8Array(await (await fetch(url!)).arrayBuffer())), href);
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
      const names: string[] = [];
      book.worksheets[0]!.eachRow((row, n) => void (n > 1 && names.push(String(row.getCell(1).value))));
      expect([label, names]).toEqual([label, expected]);
    }

    // The CLI's summary of the same run (the hub's Redis): the same counts.
    const env = process.env.VERIFY_HUB_REDIS_PREFIX;
    process.env.VERIFY_HUB_REDIS_PREFIX = stack.prefix;
    try {
      const shown = await cli('runs', runId);
      expect(shown.code).toBe(0);
      for (const [label, count] of byCategory) expect(shown.out).toContain(`${label} (${count.toLocaleString('en-US')}): `);
    } finally {
      if (env === undefined) delete process.env.VERIFY_HUB_REDIS_PREFIX;
      else process.env.VERIFY_HUB_REDIS_PREFIX = env;
    }
  });

  it('refuses a file that is not a spreadsheet, and one over the row limit, saying why', async () => {
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clean a file' }).click();
    const chooser = page.getByLabel('Choose a file');
    const alert = page.getByRole('alert');
    const alertText = async () => ((await alert.count()) ? ((await alert.first().textContent()) ?? '') : '');

    for (const [name, bytes] of [
      ['report.pdf', Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n')],
      ['logo.png', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')],
    ] as const) {
      await chooser.setInputFiles({ name, mimeType: name.endsWith('.pdf') ? 'application/pdf' : 'image/png', buffer: bytes });
      const extension = name.slice(name.lastIndexOf('.'));
      const message = await until(alertText, (text) => text.includes(extension));
      expect(message).toMatch(/unsupported|not supported/i);
      expect(await page.getByRole('table', { name: 'Preview' }).count()).toBe(0);
    }

    // The hub's row limit (50,000 data rows; `verify-hub serve` has no setting to lower it).
    const big = join(work, 'too-many-rows.csv');
    const rows = ['email,name'];
    for (let i = 1; i <= 50_001; i++) rows.push(`person${i}@example.com,Person ${i}`);
    writeFileSync(big, `${rows.join('\n')}\n`);
    await chooser.setInputFiles(big);
    const message = await until(alertText, (text) => /50,?000/.test(text), 30_000);
    expect(message).toMatch(/more than 50,?000|limit/i);
    // The marketer's message, not the server's: no path of the hub's upload folder.
    expect(message).not.toMatch(/vh-e2e-|\/tmp\//);
    expect(await page.getByRole('table', { name: 'Preview' }).count()).toBe(0);
  });

  it('a refused file clears the previous preview: no old table, no "Start cleaning", the old upload discarded', async () => {
    const good = join(work, 'first-list.csv');
    writeFileSync(good, 'email,name\nfirst.one@example.com,One\nfirst.two@example.com,Two\n');
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clean a file' }).click();
    const chooser = page.getByLabel('Choose a file');
    const previewTable = page.getByRole('table', { name: 'Preview' });
    const start = page.getByRole('button', { name: 'Start cleaning' });

    // A type the browser refuses, and a file the hub refuses (empty), each after a good preview.
    const refusals: { file: Parameters<typeof chooser.setInputFiles>[0]; says: RegExp }[] = [
      { file: { name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') }, says: /unsupported type "\.pdf"/ },
      { file: { name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.from('') }, says: /empty/ },
    ];
    for (const refusal of refusals) {
      const [answer] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/api/files/preview') && r.status() === 201), chooser.setInputFiles(good)]);
      const uploadId = ((await answer.json()) as { upload: { id: string } }).upload.id;
      await previewTable.waitFor();
      expect(await start.isEnabled()).toBe(true);

      await chooser.setInputFiles(refusal.file);
      const alert = page.getByRole('alert');
      await until(async () => ((await alert.count()) ? ((await alert.first().textContent()) ?? '') : ''), (text) => refusal.says.test(text));
      expect(await previewTable.count()).toBe(0);
      expect(await start.count()).toBe(0);
      expect(await page.getByTestId('estimate').count()).toBe(0);
      // The replaced preview is removed from the hub, not left for a day.
      await until(async () => (await stack.api(`/api/files/${uploadId}/estimate`)).status, (status) => status === 404);
    }
  });

  it('warns when the chosen email column does not look like one, and starts only once the user chose or confirmed', async () => {
    const input = join(work, 'columns.csv');
    writeFileSync(input, ['name,email,city', ...Array.from({ length: 8 }, (_, i) => `Person ${i},col.${i}@example.com,Town ${i}`)].join('\n') + '\n');
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clean a file' }).click();
    await page.getByLabel('Choose a file').setInputFiles(input);
    await page.getByRole('table', { name: 'Preview' }).waitFor();
    const start = page.getByRole('button', { name: 'Start cleaning' });
    const warning = page.getByTestId('column-warning');
    expect(await warning.count()).toBe(0);

    await page.getByLabel('Email column', { exact: true }).selectOption('name');
    await warning.waitFor();
    expect(await warning.getAttribute('role')).toBe('alert');
    expect(await warning.textContent()).toContain('Only 0% of the values in column "name" look like email addresses; is this the email column? Column "email" looks like one.');
    expect(await start.isDisabled()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'column-warning.png'), fullPage: true });
    // Confirming unlocks the start; choosing another column asks again.
    await page.getByLabel('“name” is the email column: clean with it anyway').check();
    expect(await start.isEnabled()).toBe(true);
    await page.getByLabel('Email column', { exact: true }).selectOption('city');
    await until(async () => ((await warning.count()) ? ((await warning.textContent()) ?? '') : ''), (text) => text.includes('column "city"'));
    expect(await start.isDisabled()).toBe(true);

    // The suggested column in one click: the warning goes, the start is open.
    await page.getByRole('button', { name: 'Use column “email”' }).click();
    // The warning is hidden while the new estimate comes; the start opens once it came without one.
    await until(async () => start.isEnabled(), (enabled) => enabled);
    expect(await warning.count()).toBe(0);
    expect(await page.getByLabel('Email column', { exact: true }).inputValue()).toBe('email');
  });

  it('finds runs on the runs page by name, source and status', async () => {
    const startFileRun = async (name: string) => {
      const form = new FormData();
      form.append('file', new Blob([`email\n${name}.one@example.com\n${name}.two@example.com\n`], { type: 'text/csv' }), `${name}.csv`);
      const res = await stack.api('/api/files', { method: 'POST', body: form });
      expect(res.status).toBe(202);
      return ((await res.json()) as { run: { id: string } }).run.id;
    };
    const alpha = await startFileRun('Quarterly-Alpha');
    const beta = await startFileRun('Quarterly-Beta');
    const statusOf = async (id: string) => ((await (await stack.api(`/api/runs/${id}`)).json()) as { status: string }).status;
    await until(async () => [await statusOf(alpha), await statusOf(beta)], (all) => all.every((s) => s === 'completed'), 60_000);

    const page = await signedInPage();
    const table = page.getByRole('table', { name: 'Runs' });
    await table.getByRole('link', { name: 'Quarterly-Alpha.csv' }).waitFor();
    const names = async () => table.locator('tbody td.run-name a').allTextContents();

    await page.getByRole('searchbox', { name: 'Search by name' }).fill('quarterly-al');
    await until(names, (shown) => shown.length === 1);
    expect(await names()).toEqual(['Quarterly-Alpha.csv']);
    await page.getByRole('searchbox', { name: 'Search by name' }).fill('QUARTERLY');
    await until(names, (shown) => shown.length === 2);
    expect((await names()).sort()).toEqual(['Quarterly-Alpha.csv', 'Quarterly-Beta.csv']);

    // Platforms only: no file run is left.
    await page.getByLabel('Source').selectOption('platform');
    await until(async () => page.getByTestId('runs-summary').textContent(), (text) => text === '0 runs match.');
    expect(await table.count()).toBe(0);
    await page.getByLabel('Source').selectOption('file');
    await until(names, (shown) => shown.length === 2);

    // By status: cancelled shows none of them, completed both.
    await page.getByLabel('Status').selectOption('cancelled');
    await until(async () => page.getByTestId('runs-summary').textContent(), (text) => text === '0 runs match.');
    await page.getByLabel('Status').selectOption('completed');
    await until(names, (shown) => shown.length === 2);
    const statuses = await table.locator('tbody .status').allTextContents();
    expect(statuses.map((s) => s.trim())).toEqual(['completed', 'completed']);
    await page.screenshot({ path: join(SCREENSHOTS, 'runs-filtered.png'), fullPage: true });
  });

  it('connects HubSpot with a private app token, sets up the fields and syncs every contact back to the portal', async () => {
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Connect HubSpot' }).click();
    await page.getByLabel('Private app token').fill(PORTAL.token);
    await page.getByRole('button', { name: 'Save connection' }).click();
    const card = page.getByRole('article').filter({ has: page.getByRole('button', { name: 'Start sync' }) }).filter({ hasText: /hubspot|4242/i });
    await card.waitFor();
    expect(await card.count()).toBe(1);
    expect((await card.textContent()) ?? '').toMatch(/connected/i);
    expect((await card.textContent()) ?? '').not.toContain(PORTAL.token);
    const { connections } = (await (await stack.api('/api/connections')).json()) as { connections: { id: string; platform: string; details: Record<string, string> }[] };
    const connection = connections.find((c) => c.platform === 'hubspot');
    expect(connection?.details).toMatchObject({ portalId: PORTAL.portalId });

    await card.getByRole('button', { name: 'Set up fields' }).click();
    await until(async () => (await card.textContent()) ?? '', (text) => text.includes('ev_risk'));
    const portal = stack.hubspot.portal(PORTAL.portalId);
    for (const name of ['ev_risk', 'ev_score', 'ev_reason', 'ev_checked_at']) expect(portal.properties.has(name)).toBe(true);

    await card.getByRole('button', { name: 'Start sync' }).click();
    await page.waitForURL(/#\/runs\/[^/]+$/);
    const final = await until(() => runPageState(page), (s) => s.status === 'completed', 60_000);
    expect(final).toMatchObject({ percent: 100, pulled: CONTACTS.length, verified: CONTACTS.length, written: CONTACTS.length });

    // What the portal now holds: every contact carries its result.
    const written = [...portal.contacts.values()].map((c) => [c.properties.email, c.properties.ev_risk]);
    expect(written.sort()).toEqual(CONTACTS.map((email) => [email, riskOf(email)]).sort());
  });

  it('connects Mailchimp with an API key and an audience picked from the account; the hub registers its webhook (not for API changes)', async () => {
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Connect Mailchimp' }).click();
    const form = page.locator('.connect-form');
    // A refused key: said plainly, and the audience can still be typed.
    await form.getByLabel('API key').fill(`${'4'.repeat(32)}-us7`);
    await form.getByRole('button', { name: 'List from your account' }).click();
    await form.getByText(/^apiKey: Mailchimp refused this API key.*You can still type the Audience\.$/).waitFor();
    expect(await form.getByLabel('Audience', { exact: true }).evaluate((el) => el.tagName)).toBe('INPUT');

    await form.getByLabel('API key').fill(MAILCHIMP.apiKey);
    await form.getByRole('button', { name: 'List from your account' }).click();
    // The field stays a text box until the listing comes back (and stays one if it fails): wait for the list
    // itself, a combobox, not for whatever "Audience" labels now (selectOption on the text box fails at once
    // when the page is slower than the click: issue 30).
    await form.getByRole('combobox', { name: 'Audience', exact: true }).selectOption({ label: `List ${MAILCHIMP.listId} (0 members)` });
    await form.getByRole('button', { name: 'Save connection' }).click();
    await page.getByText(/The hub registered its webhook in Mailchimp/).waitFor();
    const connectionId = `mailchimp-us7-${MAILCHIMP.listId}`;
    const hooks = stack.mailchimp.webhooks(MAILCHIMP.listId).filter((hook) => hook.url.includes(`/webhooks/mailchimp/${connectionId}/`));
    expect(hooks).toEqual([expect.objectContaining({ url: expect.stringMatching(new RegExp(`^${stack.hub.url}/`)), sources: { user: true, admin: true, api: false } })]);
    expect(await page.getByTestId('webhook-url').count()).toBe(0);
  });

  it('connects Mailchimp through its OAuth sign-in; the hub registers its webhook, again on a new address, and accepts deliveries on it', async () => {
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Connect Mailchimp' }).click();
    await page.getByLabel('Audience', { exact: true }).fill(MAILCHIMP.listId);
    // The hub's OAuth start, Mailchimp's authorize page (the fake approves at once), the hub's callback, back to the page.
    await page.getByRole('link', { name: 'Sign in with Mailchimp' }).click();
    await page.getByText(/Connected Mailchimp: Acme Newsletters\. The hub registered its webhook in Mailchimp/).waitFor();
    expect(page.url()).toMatch(/#\/connections$/);
    const card = page.getByRole('article', { name: 'Mailchimp: Acme Newsletters' });
    expect((await card.textContent()) ?? '').toMatch(/signed in with OAuth/);
    expect((await card.textContent()) ?? '').toContain(MAILCHIMP.listId);

    const oauthHooks = () => stack.mailchimp.webhooks(MAILCHIMP.listId).filter((hook) => !hook.url.includes(`/mailchimp-us7-${MAILCHIMP.listId}/`));
    const [registered] = oauthHooks();
    expect(registered).toMatchObject({ sources: { user: true, admin: true, api: false } });

    // A new address replaces the registration: the old secret's webhook is gone.
    await card.getByRole('button', { name: 'New webhook URL' }).click();
    await page.getByText(/^New webhook address for Mailchimp: Acme Newsletters\. The hub registered its webhook/).waitFor();
    expect(oauthHooks()).toHaveLength(1);
    expect(oauthHooks()[0]!.url).not.toBe(registered!.url);
    const webhookUrl = new URL(oauthHooks()[0]!.url);
    expect(webhookUrl.origin).toBe(stack.hub.url);
    const [, , connectionId, secret] = webhookUrl.pathname.split('/').filter(Boolean);
    expect(connectionId).toMatch(/^mailchimp-us7-/);

    // What Mailchimp then posts there, signed with the secret it answered once at registration: the hub takes it;
    // the same delivery unsigned, or at a made-up URL secret, is refused.
    const signingSecret = stack.mailchimp.signingSecretOf(MAILCHIMP.listId, oauthHooks()[0]!.url);
    expect(signingSecret).toEqual(expect.any(String));
    const body = `type=subscribe&fired_at=2026-11-21+10%3A00%3A00&data%5Bemail%5D=new.subscriber%40example.com&data%5Blist_id%5D=${MAILCHIMP.listId}&data%5Bid%5D=abc`;
    const delivery = (path: string, signed = true) =>
      fetch(`${stack.hub.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signed ? { 'x-mailchimp-signature': signatureFor(signingSecret!, body, Date.now()) } : {}) },
        body,
      });
    const accepted = await delivery(webhookUrl.pathname);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ received: 1 });
    expect((await delivery(webhookUrl.pathname, false)).status).toBe(401);
    const refused = await delivery(`/webhooks/mailchimp/${connectionId}/${secret!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  });

  it('creates a weekly schedule with a readable preview, pauses it and deletes it', async () => {
    const page = await signedInPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules', exact: true }).waitFor();

    const connectionSelect = page.getByLabel('Connection');
    // The connection made in the HubSpot scenario (its id or label names the platform or the portal).
    // Value and text read together in the page: read one by one, a re-render between the two reads could
    // pair the "No connections yet" option's empty value with a connection's text.
    const readOptions = () => connectionSelect.locator('option').evaluateAll((found) => found.map((o) => ({ value: (o as unknown as { value: string }).value, text: (o.textContent ?? '').trim() })));
    const isHubSpot = (o: { value: string; text: string }) => o.value !== '' && /hubspot|4242/i.test(`${o.value} ${o.text}`);
    const connectionId = (await until(readOptions, (found) => found.some(isHubSpot))).find(isHubSpot)!.value;
    await connectionSelect.selectOption(connectionId!);
    expect(await page.getByLabel('Scope').inputValue()).toBe('all');
    await page.getByLabel('Timezone').fill('UTC');
    // The advanced option (presets are the default: test/e2e/schedules-keys.test.ts).
    await page.getByLabel('Repeat').selectOption({ label: 'Custom (cron)' });
    await page.getByLabel('Cron').fill('0 3 * * 1');
    const preview = page.getByTestId('cron-preview');
    const described = await until(async () => (await preview.textContent()) ?? '', (text) => /monday/i.test(text));
    expect(described).toMatch(/03:00|3:00/);

    await page.getByRole('button', { name: 'Create schedule' }).click();
    const table = page.getByRole('table', { name: 'Schedules' });
    const row = table.getByRole('row').filter({ hasText: '0 3 * * 1' });
    await row.waitFor();
    type Listed = { schedules: { id: string; cron: string; paused: boolean; connectionId?: string; request?: { connectionId: string } }[] };
    const listed = async () => ((await (await stack.api('/api/schedules')).json()) as Listed).schedules;
    const [saved] = await listed();
    expect(saved).toMatchObject({ cron: '0 3 * * 1', paused: false });

    await row.getByRole('button', { name: 'Pause' }).click();
    await row.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await listed())[0]).toMatchObject({ id: saved!.id, paused: true });

    await row.getByRole('button', { name: 'Delete' }).click();
    await until(() => row.count(), (n) => n === 0);
    expect(await listed()).toEqual([]);
  });

  it('pauses, resumes and cancels runs from the runs list', async () => {
    // A slow engine keeps both runs going long enough to act on them.
    stack.engine.options.latencyMs = 2_000;
    try {
      const startFileRun = async (name: string) => {
        const form = new FormData();
        const rows = Array.from({ length: 200 }, (_, i) => `${name}.${i}@example.com`);
        form.append('file', new Blob([`email\n${rows.join('\n')}\n`], { type: 'text/csv' }), `${name}.csv`);
        const res = await stack.api('/api/files', { method: 'POST', body: form });
        expect(res.status).toBe(202);
        return ((await res.json()) as { run: { id: string } }).run.id;
      };
      const [toPause, toCancel] = [await startFileRun('pause-me'), await startFileRun('cancel-me')];
      const statusOf = async (id: string) => ((await (await stack.api(`/api/runs/${id}`)).json()) as { status: string }).status;

      const page = await signedInPage();
      const table = page.getByRole('table', { name: 'Runs' });
      // Rows are found by the run's id (shown under its name).
      const row = (id: string) => table.getByRole('row').filter({ hasText: id });
      const rowStatus = (id: string) => async () => ((await row(id).locator('.status').textContent()) ?? '').trim();

      await row(toPause).getByRole('button', { name: `Pause ${toPause}` }).click();
      await until(rowStatus(toPause), (status) => status === 'paused');
      await row(toPause).getByRole('button', { name: `Resume ${toPause}` }).waitFor();
      expect(await statusOf(toPause)).toBe('paused');

      await row(toCancel).getByRole('button', { name: `Cancel ${toCancel}` }).click();
      await until(rowStatus(toCancel), (status) => status === 'cancelled');
      expect(await row(toCancel).getByRole('button').count()).toBe(0);
      expect(await statusOf(toCancel)).toBe('cancelled');

      stack.engine.options.latencyMs = 0;
      await row(toPause).getByRole('button', { name: `Resume ${toPause}` }).click();
      await until(rowStatus(toPause), (status) => status === 'completed', 60_000);
      expect(await row(toPause).getByRole('cell').filter({ hasText: '100 %' }).count()).toBe(1);
    } finally {
      stack.engine.options.latencyMs = 0;
    }
  });

  it('can be used with the keyboard alone: sign in, choose a file and start cleaning', async () => {
    const input = join(work, 'keyboard.csv');
    writeFileSync(input, 'email,name\nkey.one@example.com,One\nkey.two@example.com,Two\n');
    const page = await newPage();
    await page.getByRole('heading', { name: 'Sign in to verify-hub' }).waitFor();

    const tokenField = await tabUntil(page, (f) => f.tag === 'input' && f.label === 'Admin token');
    expect(tokenField.type).toBe('password');
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();

    const link = await tabUntil(page, (f) => f.tag === 'a' && f.label === 'Clean a file');
    // A visible focus indicator on what the keyboard reached.
    expect(link.outlineStyle !== 'none' || link.boxShadow !== 'none').toBe(true);
    await page.keyboard.press('Enter');
    await page.getByText('Drop a CSV or Excel file here').waitFor();

    await tabUntil(page, (f) => f.tag === 'input' && f.type === 'file');
    // Playwright turns on its file-chooser interception asynchronously: listen, let a round trip through
    // the page settle it, then press Enter (else the browser may open its own dialog and nothing comes).
    const chosen = page.waitForEvent('filechooser');
    await page.evaluate('0');
    await page.keyboard.press('Enter');
    const chooser = await chosen;
    await chooser.setFiles(input);
    await page.getByRole('table', { name: 'Preview' }).waitFor();

    await tabUntil(page, (f) => f.tag === 'button' && f.label === 'Start cleaning');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/runs\/[^/]+$/);
    await until(() => runPageState(page), (s) => s.status === 'completed', 60_000);
  });

  it('checks a single address with the keyboard: the verdict, each check and why in plain words, and the did-you-mean suggestion', async () => {
    // What the engine says of a typo'd provider domain: the domain does not exist, and it suggests the one meant.
    stack.engine.script('someone@gmial.com', {
      kind: 'result',
      risk: 'invalid',
      reason: 'domain_not_found',
      flags: { mx: false, smtpCheck: 'not_checked', catchAll: null, freeProvider: false },
      fields: { did_you_mean: 'gmail.com' },
    });
    const runsBefore = ((await (await stack.api('/api/runs?limit=500')).json()) as { runs: unknown[] }).runs.length;
    const page = await signedInPage();

    const link = await tabUntil(page, (f) => f.tag === 'a' && f.label === 'Check an address');
    expect(link.outlineStyle !== 'none' || link.boxShadow !== 'none').toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Check an address' }).waitFor();

    // Nothing typed: the page says what to enter, and marks the field.
    await tabUntil(page, (f) => f.tag === 'button' && f.label === 'Check');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/Email address: enter the address to check/);
    expect(await page.getByLabel('Email address').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Email address').focus();
    await page.keyboard.type('someone@gmial.com');
    await page.keyboard.press('Enter');
    const verdict = page.getByTestId('check-verdict');
    await verdict.waitFor();
    expect((await verdict.textContent())?.trim()).toMatch(/^Invalid · score \d+\/100$/);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.getByTestId('check-summary').textContent()).toBe('Invalid: its domain does not exist. Do not send to this address. Mailbox not checked: no SMTP conversation with the mail server took place.');
    expect(await page.getByTestId('check-did-you-mean').textContent()).toMatch(/Did you mean someone@gmail\.com\?/);
    const checks = page.getByRole('table', { name: 'Checks' });
    const row = async (label: string) => ((await checks.getByRole('row', { name: label }).textContent()) ?? '').replace(label, '').trim();
    expect(await row('Address format')).toBe('well-formed');
    expect(await row('Mail server (MX record)')).toBe('none found');
    expect(await row('Mailbox (SMTP conversation)')).toBe('not checked');
    expect(await row('Domain accepts any address (catch-all)')).toBe('not checked');
    expect(await row('Typo in the domain')).toBe('likely: did you mean someone@gmail.com?');
    expect(await page.getByTestId('check-result').textContent()).toContain('reason code domain_not_found');
    await page.screenshot({ path: join(SCREENSHOTS, 'single-check.png'), fullPage: true });

    // The suggestion can be checked in turn, from the keyboard.
    await tabUntil(page, (f) => f.tag === 'button' && f.label === 'Check someone@gmail.com');
    await page.keyboard.press('Enter');
    await until(async () => (await verdict.textContent()) ?? '', (text) => text.startsWith('Safe'));
    expect(await page.getByLabel('Email address').inputValue()).toBe('someone@gmail.com');
    expect(await page.getByTestId('check-did-you-mean').count()).toBe(0);

    // Single checks start no run.
    const runsAfter = ((await (await stack.api('/api/runs?limit=500')).json()) as { runs: unknown[] }).runs.length;
    expect(runsAfter).toBe(runsBefore);
  });
});
