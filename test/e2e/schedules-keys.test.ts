import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LocalEngine, startEngineServer, type EngineServer } from '@verify-hub/engine';
import { INSTALL_HINT, VIEWPORT, axeViolations, browserPolicy, launchBrowser, signIn, startStack, until, type Stack } from './harness';

/**
 * Schedules made from presets, and the API keys page, in a real browser against `verify-hub serve` on
 * the local engine (no ENGINE_URL), with a real engine server (`verify-hub engine`) on the same Redis:
 * a key made on the page is used against that server, and revoked there at once.
 */

jest.setTimeout(120_000);

const ADMIN_TOKEN = 'e2e-admin-token-keys-0123456789';
const PORTAL = { portalId: '5151', token: 'pat-e2e-keys-private-app-token' };
const MAILCHIMP = { apiKey: `${'6'.repeat(32)}-us7`, listId: 'e2ekeys', oauthToken: 'mc-e2e-keys-oauth-token' };

const policy = browserPolicy();
const describeIfRun = policy === 'run' ? describe : describe.skip;
if (policy === 'fail') {
  describe('schedules and API keys in a real browser', () => {
    it('needs Chromium', () => {
      throw new Error(`[e2e] ${INSTALL_HINT}`);
    });
  });
}

describeIfRun('schedules and API keys in a real browser (hub on the local engine + engine server on the same Redis)', () => {
  let stack: Stack;
  let engine: EngineServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const engineKeyPrefix = `test-e2e-keys-${randomUUID().slice(0, 8)}:`;

  async function signedInPage(): Promise<Page> {
    // bypassCSP: only so that axe-core can be injected (the hub's CSP allows no inline script).
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce', timezoneId: 'Europe/Paris', bypassCSP: true });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.hub.url + '/');
    await signIn(page, ADMIN_TOKEN);
    return page;
  }

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack({ adminToken: ADMIN_TOKEN, portal: PORTAL, mailchimp: MAILCHIMP, localEngine: { engineKeyPrefix } }), launchBrowser()]);
    // Reserved example domains are answered without network traffic.
    engine = await startEngineServer({ port: 0, redisUrl: process.env.REDIS_URL, keyPrefix: engineKeyPrefix, verifier: new LocalEngine() });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await engine?.close();
    await stack?.stop();
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = await redis.keys(`${engineKeyPrefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('creates a weekly schedule from the presets (Create waits for a connection; a bad cron is explained per field)', async () => {
    const page = await signedInPage();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { name: 'Schedules', exact: true }).waitFor();
    const createButton = page.getByRole('button', { name: 'Create schedule' });
    // No connection yet: Create is disabled and the page says what to do.
    await page.getByText('A schedule syncs a connection').waitFor();
    expect(await createButton.isDisabled()).toBe(true);

    const connected = await stack.api('/api/connections/hubspot', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ accessToken: PORTAL.token, label: 'Sales portal' }) });
    expect(connected.status).toBe(201);
    const connectionId = ((await connected.json()) as { connection: { id: string } }).connection.id;
    await page.reload();
    await page.getByRole('heading', { name: 'Schedules', exact: true }).waitFor();
    await until(() => page.getByLabel('Connection').inputValue(), (value) => value === connectionId);

    // The zone starts at the browser's and is shown with the preview.
    expect(await page.getByLabel('Timezone').inputValue()).toBe('Europe/Paris');
    await page.getByLabel('Repeat').selectOption({ label: 'Every week' });
    await page.getByLabel('On', { exact: true }).selectOption({ label: 'Monday' });
    await page.getByLabel('At', { exact: true }).fill('09:00');
    const preview = page.getByTestId('cron-preview');
    const described = await until(async () => (await preview.textContent()) ?? '', (text) => text.includes('Every Monday at 09:00'));
    expect(described).toContain('(Europe/Paris)');
    expect(described).toContain('0 9 * * 1');
    expect(await axeViolations(page)).toEqual([]);

    expect(await createButton.isDisabled()).toBe(false);
    await createButton.click();
    const row = page.getByRole('table', { name: 'Schedules' }).getByRole('row').filter({ hasText: 'Every Monday at 09:00' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Europe/Paris');
    const listed = (await (await stack.api('/api/schedules')).json()) as { schedules: { cron: string; timezone: string; request: { connectionId: string } }[] };
    expect(listed.schedules).toEqual([expect.objectContaining({ cron: '0 9 * * 1', timezone: 'Europe/Paris', request: expect.objectContaining({ connectionId }) })]);

    // The advanced option: a typed pattern, explained in words when it cannot be read.
    await page.getByLabel('Repeat').selectOption({ label: 'Custom (cron)' });
    await page.getByLabel('Cron').fill('0 9 * * 8');
    await until(async () => (await preview.textContent()) ?? '', (text) => text.includes('the 5th field (day of week) must be 0-7'));
    expect(await page.getByLabel('Cron').getAttribute('aria-invalid')).toBe('true');
    expect(await preview.textContent()).not.toMatch(/constraint|expected range/i);
  });

  it('creates a key shown once, sees its use and the usage the engine reports, revokes it and the next request is refused', async () => {
    const page = await signedInPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', exact: true }).waitFor();
    await page.getByTestId('usage').waitFor();
    const usedBefore = Number(await page.getByTestId('usage-used').textContent());

    await page.getByLabel('Name').fill('Website form');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyField = page.getByLabel('New API key');
    const key = await until(() => keyField.inputValue(), (value) => /^vh_[A-Za-z0-9_-]{43}$/.test(value));
    await page.getByText('you will not see it again').waitFor();
    // It takes the focus, so it is read out and ready to copy.
    await until(() => page.evaluate('document.activeElement && document.activeElement.id'), (id) => id === 'new-api-key');
    await page.getByRole('button', { name: 'Copy' }).click();
    const table = page.getByRole('table', { name: 'API keys' });
    const row = table.getByRole('row').filter({ hasText: 'Website form' });
    await row.waitFor();
    expect(await row.textContent()).toContain(key.slice(0, 7));
    expect(await row.getByTestId('last-used').textContent()).toBe('never');
    expect(await axeViolations(page)).toEqual([]);

    // Gone once dismissed, and nowhere after a reload: only its prefix is listed.
    await page.getByRole('button', { name: 'Done' }).click();
    await until(() => keyField.count(), (n) => n === 0);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(key.slice(7));

    const answer = await fetch(`${engine.url}/api/v1/verify?email=ada@example.com`, { headers: { 'X-API-Key': key } });
    expect(answer.status).toBe(200);
    // The page reads again on its own: last used, and the month's figures the engine's headers gave.
    await until(() => row.getByTestId('last-used').textContent(), (text) => text !== 'never', 20_000);
    await until(async () => Number(await page.getByTestId('usage-used').textContent()), (used) => used === usedBefore + 1, 20_000);
    const figure = async (id: string) => ((await page.getByTestId(id).textContent()) ?? '').replace(/,/g, '');
    expect(await figure('usage-quota')).toBe(answer.headers.get('x-quota-limit'));
    expect(await figure('usage-remaining')).toBe(answer.headers.get('x-quota-remaining'));
    expect(await figure('usage-rate')).toBe(answer.headers.get('x-ratelimit-limit'));

    await row.getByRole('button', { name: 'Revoke Website form' }).click();
    await until(async () => ((await row.locator('.status').textContent()) ?? '').trim(), (status) => status.startsWith('revoked'));
    const refused = await fetch(`${engine.url}/api/v1/verify?email=ada@example.com`, { headers: { 'X-API-Key': key } });
    expect(refused.status).toBe(401);
  });

  it('"Sign out everywhere" asks first, then ends every dashboard session, another browser\'s too', async () => {
    const [mine, theirs] = [await signedInPage(), await signedInPage()];
    const everywhere = mine.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Sign out everywhere' });
    const questions: string[] = [];
    mine.once('dialog', (dialog) => {
      questions.push(dialog.message());
      void dialog.dismiss();
    });
    await everywhere.click();
    await until(async () => questions.length, (n) => n === 1);
    expect(questions[0]).toContain('every AI assistant signed in to this hub');
    // Declined: both stay signed in.
    await theirs.reload();
    await theirs.getByRole('heading', { name: 'Runs', exact: true }).waitFor();

    mine.once('dialog', (dialog) => void dialog.accept());
    await everywhere.click();
    await mine.getByText('Every dashboard session and AI-assistant sign-in of this hub has ended: sign in again.').waitFor();
    await mine.getByLabel('Admin token').waitFor();
    await theirs.reload();
    await theirs.getByLabel('Admin token').waitFor();
    // The admin token still signs in.
    await signIn(theirs, ADMIN_TOKEN);
  });

  // Last: it stops the fake HubSpot, so its port is closed from here on.
  it('says what to check when HubSpot cannot be reached: connecting and setting up fields, never "internal error"', async () => {
    const words = 'HubSpot could not be reached: check the network or HUBSPOT_API_BASE (connection refused)';
    await stack.hubspot.stop();
    const page = await signedInPage();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Connections' }).click();
    await page.getByRole('heading', { name: 'Connections', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Connect HubSpot' }).click();
    await page.getByLabel('Private app token').fill(PORTAL.token);
    await page.getByRole('button', { name: 'Save connection' }).click();
    const alert = page.getByRole('alert');
    expect(await until(async () => ((await alert.allTextContents()).join(' ')), (text) => text.includes(words))).not.toMatch(/internal error/i);

    // The connection made in the first scenario: its field setup goes through the connector's retries first.
    await page.reload();
    const card = page.getByRole('article').filter({ hasText: 'Sales portal' });
    await card.waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await card.getByRole('button', { name: 'Set up fields' }).click();
    await until(async () => ((await page.getByRole('alert').allTextContents()).join(' ')), (text) => text.includes(words), 60_000);
  });
});
