import { createHmac } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '@verify-hub/core';
import { mailchimpSetup } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp, md5Hash } from '../fakes/mailchimp';
import { until, useHub } from '../setup/hub-harness';

const KEY = `${'5'.repeat(32)}-us4`;

/**
 * `verify-hub serve` registering its own Mailchimp audience webhook (sources user and admin, not api),
 * against the fake Mailchimp that delivers webhooks by source: the hub's write-backs never come back.
 */
describe('Mailchimp: the hub registers its audience webhook without the api source', () => {
  let fake: FakeMailchimp;
  const stack = useHub({
    platform: 'mailchimp',
    connectionId: () => 'mailchimp-us4-news',
    runTimeoutMs: 20_000,
    fake: async () => {
      fake = await new FakeMailchimp().start();
      fake.addAccount(KEY, { dc: 'us4' });
      fake.addList(KEY, 'news');
      fake.addMembers('news', [{ email: 'ada@example.com' }, { email: 'bob@example.org' }, { email: 'cy@example.net' }]);
      return fake;
    },
    settings: () => ({ MAILCHIMP_API_BASE: fake.apiBase }),
  });
  const { auth, runToEnd } = stack;

  const connect = () => request(stack.hub.url).post('/api/connections/mailchimp').set(auth).send({ apiKey: KEY, listId: 'news' });
  const secretOf = (url: string) => url.split('/').pop();

  it('registers one webhook at its receiver (user and admin, not api) on connect, again, and on a renewed address', async () => {
    const first = await connect();
    expect(first.status).toBe(201);
    expect(first.body.webhook).toEqual({ registered: true });
    const [hook, ...others] = fake.webhooks('news');
    expect(others).toEqual([]);
    expect(hook).toMatchObject({
      url: first.body.webhookUrl,
      sources: { user: true, admin: true, api: false },
      events: { subscribe: true, unsubscribe: true, profile: true, cleaned: true, upemail: true, campaign: false },
    });
    expect(hook!.url).toMatch(new RegExp(`^${stack.hub.url}/webhooks/mailchimp/mailchimp-us4-news/[A-Za-z0-9_-]{32}$`));

    // Connecting again makes a new secret: the old registration is replaced, not doubled.
    const second = await connect();
    expect(second.body.webhook).toEqual({ registered: true });
    expect(fake.webhooks('news').map((h) => h.url)).toEqual([second.body.webhookUrl]);
    const renewed = await request(stack.hub.url).post('/api/connections/mailchimp-us4-news/webhook-url').set(auth);
    expect(renewed.body).toEqual({ webhookUrl: expect.stringContaining('/webhooks/mailchimp/mailchimp-us4-news/'), webhook: { registered: true } });
    expect(secretOf(renewed.body.webhookUrl)).not.toBe(secretOf(second.body.webhookUrl));
    expect(fake.webhooks('news').map((h) => h.url)).toEqual([renewed.body.webhookUrl]);

    // The same registration asked for twice keeps the webhook there (same id), with nothing posted to Mailchimp.
    const { id } = fake.webhooks('news')[0]!;
    const stored = await stack.hub.pipeline.connections!.get('mailchimp-us4-news');
    fake.resetStats();
    const again = await mailchimpSetup(loadConfig({ MAILCHIMP_API_BASE: fake.apiBase })).registerWebhook!(stored!, stack.hub.url);
    expect(again).toEqual({ url: renewed.body.webhookUrl, registered: true });
    expect(fake.webhooks('news').map((h) => h.id)).toEqual([id]);
    expect(fake.stats().write).toBe(0);
  });

  it("a sync's write-backs post nothing back; an admin change posts one event, verified and written back once", async () => {
    expect((await request(stack.hub.url).post('/api/connections/mailchimp-us4-news/ensure-schema').set(auth)).status).toBe(200);
    const run = await runToEnd();
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 3 } });
    expect(fake.member('news', 'ada@example.com')!.merge_fields.EVRISK).toEqual(expect.any(String));
    expect(fake.member('news', 'ada@example.com')!.merge_fields.EVRISK).not.toBe('');
    await fake.deliveriesSettled();
    expect(fake.deliveries).toEqual([]);

    fake.resetStats();
    fake.changeAsAdmin('news', 'dee@example.com');
    await fake.deliveriesSettled();
    expect(fake.deliveries).toEqual([{ url: fake.webhooks('news')[0]!.url, type: 'subscribe', source: 'admin', email: 'dee@example.com', status: 200 }]);
    await until(
      async () => fake.member('news', 'dee@example.com')!.merge_fields.EVRISK,
      (risk) => typeof risk === 'string' && risk !== '',
    );
    // Let any second round show up before counting: there must be none.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await fake.deliveriesSettled();
    expect(fake.deliveries).toHaveLength(1);
    expect(stack.engine.callsFor('dee@example.com')).toBe(1);
    expect(fake.requests.filter((r) => r.kind === 'write').every((r) => r.status < 300 && r.path.startsWith('/lists/news'))).toBe(true);
    expect(fake.stats().write).toBeGreaterThan(0);
  });

  it('keeps the signing secret Mailchimp answered once, and refuses forged, unsigned, altered and replayed deliveries', async () => {
    const [hook] = fake.webhooks('news');
    expect(hook!.signing_enabled).toBe(true);
    const signing = fake.signingSecretOf('news', hook!.url)!;
    expect((await stack.hub.pipeline.connections!.get('mailchimp-us4-news'))!.credentials.webhookSigningSecret).toBe(signing);
    const listed = await request(stack.hub.url).get('/api/connections').set(auth);
    expect(JSON.stringify(listed.body)).not.toContain(signing);

    const form = new URLSearchParams({ type: 'subscribe', fired_at: '2026-11-21 10:15:30', 'data[id]': 'abc', 'data[list_id]': 'news', 'data[email]': 'mallory@example.com' }).toString();
    const t = Math.floor(Date.now() / 1000);
    const sign = (secret: string, body: string, at: number) => `t=${at},v1=${createHmac('sha256', secret).update(`${at}.${body}`).digest('hex')}`;
    const deliver = (header: string | undefined, body = form) =>
      fetch(hook!.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(header ? { 'x-mailchimp-signature': header } : {}) }, body });
    const before = fake.stats().write;
    expect((await deliver(undefined)).status).toBe(401);
    expect((await deliver(sign('not-the-secret', form, t))).status).toBe(401);
    expect((await deliver(sign(signing, form, t), form.replace('mallory', 'trudy'))).status).toBe(401);
    // A delivery captured earlier and replayed after Mailchimp's 5-minute window.
    expect((await deliver(sign(signing, form, t - 6 * 60))).status).toBe(401);
    // The right signature at a wrong URL secret: the URL stays a second factor.
    const wrongUrl = hook!.url.replace(/[^/]+$/, 'x'.repeat(32));
    expect((await fetch(wrongUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-mailchimp-signature': sign(signing, form, t) }, body: form })).status).toBe(401);
    expect(stack.engine.callsFor('mallory@example.com')).toBe(0);
    expect(fake.stats().write).toBe(before);
  });

  it('the fake refuses a bad webhook body naming the field, and delivers a change only to webhooks asking for its source', async () => {
    const post = (body: unknown) =>
      fetch(`${fake.apiBase}/lists/news/webhooks`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`any:${KEY}`).toString('base64')}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const badUrl = await post({ url: 'not a url', sources: { api: false } });
    expect(badUrl.status).toBe(400);
    expect(badUrl.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await badUrl.json()).toMatchObject({ title: 'Invalid Resource', errors: [{ field: 'url' }] });
    expect(await (await post({ url: `${stack.hub.url}/readyz`, sources: { robots: true } })).json()).toMatchObject({ errors: [{ field: 'sources.robots' }] });
    // AddWebhook has url, events and sources only.
    expect(await (await post({ url: `${stack.hub.url}/readyz`, signing_enabled: true })).json()).toMatchObject({ errors: [{ field: 'signing_enabled' }] });

    // Another listener that takes API changes only: a user's sign-up goes to the hub's webhook alone, an API write to the other alone.
    const apiOnly = await post({ url: `${stack.hub.url}/readyz`, events: { subscribe: true, profile: true }, sources: { user: false, admin: false, api: true } });
    expect(apiOnly.status).toBe(200);
    fake.deliveries.length = 0;
    fake.subscribeAsUser('news', 'eve@example.com');
    await fake.deliveriesSettled();
    expect(fake.deliveries.map((d) => [d.url.includes('/webhooks/mailchimp/'), d.source, d.type])).toEqual([[true, 'user', 'subscribe']]);
    fake.deliveries.length = 0;
    const patched = await fetch(`${fake.apiBase}/lists/news/members/${md5Hash('eve@example.com')}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ merge_fields: { EVRISK: 'changed by a test' } }),
    });
    expect(patched.status).toBe(200);
    await fake.deliveriesSettled();
    expect(fake.deliveries.map((d) => [d.url, d.source, d.type])).toEqual([[`${stack.hub.url}/readyz`, 'api', 'profile']]);
  });
});
