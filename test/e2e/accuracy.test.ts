import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import type { AccuracyAnswer, AccuracyReport, Verification } from '@verify-hub/core';
import type { ResultBehaviour } from '../fakes/engine';
import { cli } from '../cli/run-cli';
import { md5Hash, type RecipientOutcome } from '../fakes/mailchimp';
import { INSTALL_HINT, VIEWPORT, axeViolations, browserPolicy, launchBrowser, signIn, startStack, until, type Stack } from './harness';

/**
 * Issue 36's acceptance, end to end: `verify-hub serve` (pipeline, workers, webhook receivers) verifies a
 * Mailchimp audience of 10,000 members through the fake engine and writes the verdicts back; the fake
 * Mailchimp then sends a campaign to the safe and risky members where a known 1.5 % of the safe and
 * 9 % of the risky hard-bounce, some soft-bounce, and some are cleaned for an abuse report (policy:
 * they must not count as bounces of the mailbox). Mailchimp cleans each hard bounce and posts its
 * `cleaned` webhook to the hub (reason hard or abuse) while the hub also reads the campaign's report:
 * the report, GET /api/accuracy, `verify-hub accuracy` and the dashboard page show exactly the figures
 * the test built; each hard-bounced safe or risky address is invalid in the cache and on Mailchimp,
 * written once; reading the same bounces again changes nothing.
 */

jest.setTimeout(300_000);

const ADMIN_TOKEN = 'e2e-admin-token-accuracy-0123456789';
const PORTAL = { portalId: '3636', token: 'pat-e2e-accuracy-private-app-token' };
const MAILCHIMP = { apiKey: `${'3'.repeat(32)}-us7`, listId: 'e2eaccuracy', oauthToken: 'mc-e2e-accuracy-oauth-token' };
const CONNECTION = `mailchimp-us7-${MAILCHIMP.listId}`;
const SCREENSHOTS = join(__dirname, '..', '..', 'test-output', 'e2e');

type Group = 'safe' | 'catch_all' | 'accept_all' | 'role' | 'disposable' | 'invalid';
/** The audience: 7,000 safe, 2,000 risky (four reasons), 1,000 invalid. */
const GROUPS: { group: Group; count: number; address: (i: number) => string; behaviour?: ResultBehaviour }[] = [
  { group: 'safe', count: 7000, address: (i) => `member${i}@example.com` },
  // The fake engine answers risky.* as a catch-all domain.
  { group: 'catch_all', count: 800, address: (i) => `risky.c${i}@example.com` },
  { group: 'accept_all', count: 600, address: (i) => `a${i}@accept.example.org`, behaviour: { kind: 'result', risk: 'risky', reason: 'provider_accepts_all', flags: { catchAll: false } } },
  { group: 'role', count: 400, address: (i) => `info${i}@role.example.net`, behaviour: { kind: 'result', risk: 'risky', reason: 'role_account', flags: { catchAll: false, roleAccount: true } } },
  { group: 'disposable', count: 200, address: (i) => `d${i}@throwaway.example.com`, behaviour: { kind: 'result', risk: 'risky', reason: 'disposable', flags: { catchAll: false, disposable: true } } },
  { group: 'invalid', count: 1000, address: (i) => `invalid.m${i}@example.com` },
];

/**
 * What each recipient of the campaign comes to, by its index in its group: safe 3 in 200 hard (1.5 %),
 * 2 in 200 soft, 1 in 200 abuse; risky 9 in 100 hard (9 %), 1 in 100 soft, 1 in 100 abuse.
 */
function outcomeOf(group: Group, i: number): RecipientOutcome {
  if (group === 'safe') return i % 200 < 3 ? 'hard' : i % 200 < 5 ? 'soft' : i % 200 === 5 ? 'abuse' : 'sent';
  return i % 100 < 9 ? 'hard' : i % 100 === 9 ? 'soft' : i % 100 === 10 ? 'abuse' : 'sent';
}

const policy = browserPolicy();
const describeIfRun = policy === 'run' ? describe : describe.skip;
if (policy === 'fail') {
  describe('accuracy report in a real browser', () => {
    it('needs Chromium', () => {
      throw new Error(`[e2e] ${INSTALL_HINT}`);
    });
  });
}

/** The report without its clock fields, to compare two reads of it. */
function figures(answer: AccuracyAnswer) {
  const strip = ({ since: _since, generatedAt: _generatedAt, ...rest }: AccuracyReport) => rest;
  return { days: answer.days, overall: strip(answer.overall), connections: answer.connections.map(strip) };
}

describeIfRun('accuracy from the customer\'s own sends (serve + fake engine + fake Mailchimp, 10,000 members)', () => {
  let stack: Stack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const outcomes = new Map<string, RecipientOutcome>();
  const expectedHard: string[] = [];
  const members: { email: string; group: Group; i: number }[] = [];

  const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await stack.api(path, init);
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    [stack, browser] = await Promise.all([startStack({ adminToken: ADMIN_TOKEN, portal: PORTAL, mailchimp: MAILCHIMP }), launchBrowser()]);
    for (const g of GROUPS) {
      for (let i = 0; i < g.count; i++) {
        const email = g.address(i);
        members.push({ email, group: g.group, i });
        if (g.behaviour) stack.engine.script(email, g.behaviour);
      }
    }
    stack.mailchimp.addMembers(MAILCHIMP.listId, members.map(({ email }) => ({ email })));
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await stack?.stop();
  });

  it('verifies the audience of 10,000 and writes the verdicts back', async () => {
    const connected = await stack.api('/api/connections/mailchimp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: MAILCHIMP.apiKey, listId: MAILCHIMP.listId }) });
    expect(connected.status).toBe(201);
    expect(((await connected.json()) as { webhook: unknown }).webhook).toEqual({ registered: true });
    await api(`/api/connections/${CONNECTION}/ensure-schema`, { method: 'POST' });
    const started = await api<{ id: string }>('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ platform: 'mailchimp', connectionId: CONNECTION, scope: 'all' }) });
    const run = await until(() => api<{ status: string; counters: { pulled: number; written: number } }>(`/api/runs/${started.id}`), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), 240_000);
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 10_000, written: 10_000 } });
    const byRisk = { safe: 0, risky: 0, invalid: 0 } as Record<string, number>;
    for (const m of stack.mailchimp.members(MAILCHIMP.listId)) byRisk[String(m.merge_fields.EVRISK)] = (byRisk[String(m.merge_fields.EVRISK)] ?? 0) + 1;
    expect(byRisk).toEqual({ safe: 7000, risky: 2000, invalid: 1000 });
  });

  it('a campaign to the safe and risky members: the report, the API and the CLI show exactly its figures', async () => {
    for (const m of members) {
      if (m.group === 'invalid') continue;
      const outcome = outcomeOf(m.group, m.i);
      outcomes.set(m.email, outcome);
      if (outcome === 'hard') expectedHard.push(m.email);
    }
    expect(outcomes.size).toBe(9000);
    expect(expectedHard).toHaveLength(105 + 180);
    const tagCallsBefore = stack.mailchimp.tagCalls.length;
    stack.mailchimp.campaigns.send(MAILCHIMP.listId, outcomes, Date.now());

    // Mailchimp's cleaned webhooks (hard, abuse) reach the hub while it also reads the campaign's report.
    const { read } = await api<{ read: { records: number; calls: number; corrected: number; written: number; writeFailed: number }[] }>('/api/accuracy/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(read).toHaveLength(1);
    expect(read[0]!.writeFailed).toBe(0);
    await stack.mailchimp.deliveriesSettled();
    const expectSafe = { sent: 7000, hardBounced: 105, softBounced: 70, policy: 35 };
    const expectRisky = { sent: 2000, hardBounced: 180, softBounced: 20, policy: 20 };
    const answer = await until(
      () => api<AccuracyAnswer>('/api/accuracy?days=30'),
      (a) => a.overall.corrected === 285 && a.overall.verdicts.find((v) => v.verdict === 'risky')!.policy === 20 && a.overall.verdicts.find((v) => v.verdict === 'safe')!.policy === 35,
      60_000,
    );
    const row = (report: AccuracyReport, verdict: string) => report.verdicts.find((v) => v.verdict === verdict)!;
    for (const report of [answer.overall, answer.connections[0]!]) {
      expect(row(report, 'safe')).toMatchObject({ ...expectSafe, hardBounceRate: 0.015 });
      expect(row(report, 'risky')).toMatchObject({ ...expectRisky, hardBounceRate: 0.09 });
      expect(row(report, 'risky').byReason).toEqual({
        catch_all: { sent: 800, hardBounced: 72, softBounced: 8, policy: 8 },
        accept_all: { sent: 600, hardBounced: 54, softBounced: 6, policy: 6 },
        role: { sent: 400, hardBounced: 36, softBounced: 4, policy: 4 },
        disposable: { sent: 200, hardBounced: 18, softBounced: 2, policy: 2 },
        other: { sent: 0, hardBounced: 0, softBounced: 0, policy: 0 },
      });
      expect(row(report, 'invalid')).toMatchObject({ sent: 0, hardBounced: 0, notBounced: 0 });
      expect(row(report, 'unknown').sent + row(report, 'not_verified').sent).toBe(0);
      expect(report.corrected).toBe(285);
    }
    expect(answer.connections.map((c) => [c.connectionId, c.platform])).toEqual([[CONNECTION, 'mailchimp']]);
    expect((await api<AccuracyAnswer>('/api/accuracy?days=90')).overall.verdicts).toEqual(answer.overall.verdicts);

    // Every hard-bounced safe or risky address is invalid (hard_bounce, Mailchimp as source) in the cache and on Mailchimp, written once.
    const held = await stack.hub.pipeline.cache.held(expectedHard);
    expect([...held.values()].filter((v: Verification) => v.risk === 'invalid' && v.reason === 'hard_bounce' && (v.checks.hardBounce as { platform?: string })?.platform === 'mailchimp')).toHaveLength(285);
    const policyAddresses = [...outcomes].filter(([, o]) => o === 'abuse' || o === 'soft').map(([email]) => email);
    expect([...(await stack.hub.pipeline.cache.held(policyAddresses)).values()].filter((v: Verification) => v.risk === 'invalid')).toEqual([]);
    for (const email of expectedHard) expect(stack.mailchimp.member(MAILCHIMP.listId, email)!.merge_fields.EVRISK).toBe('invalid');
    for (const email of policyAddresses) expect(stack.mailchimp.member(MAILCHIMP.listId, email)!.merge_fields.EVRISK).not.toBe('invalid');
    const writesPer = new Map<string, number>();
    for (const call of stack.mailchimp.tagCalls.slice(tagCallsBefore)) writesPer.set(call.hash, (writesPer.get(call.hash) ?? 0) + 1);
    expect(new Set(writesPer.keys())).toEqual(new Set(expectedHard.map(md5Hash)));
    expect([...writesPer.values()].every((n) => n === 1)).toBe(true);

    // Read again (the report and the webhooks both said it): nothing changes, nothing is written.
    const requestsBefore = stack.mailchimp.requests.length;
    const again = await api<{ read: { corrected: number; written: number; calls: number; records: number }[] }>('/api/accuracy/read', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(again.read[0]).toMatchObject({ corrected: 0, written: 0 });
    expect(stack.mailchimp.requests.slice(requestsBefore).filter((r) => r.kind === 'write')).toEqual([]);
    expect(stack.mailchimp.tagCalls.length - tagCallsBefore).toBe(285);
    expect(figures(await api<AccuracyAnswer>('/api/accuracy?days=30'))).toEqual(figures(answer));
    const bouncesRead = 285 + 90;
    console.log(
      `[accuracy] read 1: ${read[0]!.records} records, ${read[0]!.calls} Mailchimp calls, ${read[0]!.corrected} corrected here (${read[0]!.written} written back); ` +
        `read 2: ${again.read[0]!.records} records, ${again.read[0]!.calls} calls = ${((again.read[0]!.calls / bouncesRead) * 1000).toFixed(1)} calls per 1,000 bounces read (${bouncesRead} bounces among 9,000 recipients)`,
    );

    // The CLI reads the same ledger: the same figures, as JSON and as text.
    const saved = { ...process.env };
    Object.assign(process.env, { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', VERIFY_HUB_REDIS_PREFIX: stack.prefix, HUB_SECRET_KEY: 'e'.repeat(40), LOG_LEVEL: 'silent' });
    try {
      const json = await cli('accuracy', '--json');
      expect(json.code).toBe(0);
      expect(figures(JSON.parse(json.out) as AccuracyAnswer)).toEqual(figures(answer));
      const text = await cli('accuracy', '--connection', CONNECTION);
      expect(text.code).toBe(0);
      expect(text.out).toMatch(/Safe\s+7,000\s+105 \(1\.50 %\)\s+70\s+35/);
      expect(text.out).toMatch(/Risky\s+2,000\s+180 \(9\.00 %\)\s+20\s+20/);
      expect(text.out).toMatch(/accept-all provider\s+600\s+54 \(9\.00 %\)/);
      expect(text.out).toContain('corrected to invalid by a hard bounce (reason hard_bounce): 285');
      expect((await cli('accuracy', '--days', '7')).code).toBe(2);
    } finally {
      process.env = saved;
    }
  });

  it('the accuracy page shows the same figures, with no axe violations', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, reducedMotion: 'reduce', bypassCSP: true });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(stack.hub.url + '/');
    await signIn(page, ADMIN_TOKEN);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Accuracy' }).click();
    await page.getByRole('heading', { name: 'Accuracy', exact: true }).waitFor();
    const cells = async (id: string) => (await page.getByTestId(`accuracy-${id}`).locator('td').allTextContents()).map((t) => t.trim());
    await page.getByTestId('accuracy-safe').waitFor();
    expect(await cells('safe')).toEqual(['7,000', '105', '1.50 %', '70', '35']);
    expect(await cells('risky')).toEqual(['2,000', '180', '9.00 %', '20', '20']);
    expect(await cells('risky-catch_all')).toEqual(['800', '72', '9.00 %', '8', '8']);
    expect(await cells('risky-accept_all')).toEqual(['600', '54', '9.00 %', '6', '6']);
    expect(await cells('risky-role')).toEqual(['400', '36', '9.00 %', '4', '4']);
    expect(await cells('risky-disposable')).toEqual(['200', '18', '9.00 %', '2', '2']);
    expect(await page.getByTestId('accuracy-corrected').textContent()).toContain('285');
    expect(await page.getByRole('img', { name: /Hard-bounce rate by verdict/ }).getAttribute('aria-label')).toContain('safe 1.50 % (105 of 7000 sent)');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'accuracy-page.png'), fullPage: true });

    // One connection, and the 90-day window: the same figures (one connection, one campaign just sent).
    await page.getByRole('combobox', { name: 'Connection' }).selectOption(CONNECTION);
    await until(() => page.getByRole('heading', { level: 2 }).textContent(), (t) => !!t && !t.startsWith('All connections'));
    await page.getByRole('combobox', { name: 'Window' }).selectOption('90');
    await until(() => page.getByRole('heading', { level: 2 }).textContent(), (t) => /last 90 days/.test(t ?? ''));
    expect(await cells('safe')).toEqual(['7,000', '105', '1.50 %', '70', '35']);
    expect(await axeViolations(page)).toEqual([]);
  });
});
