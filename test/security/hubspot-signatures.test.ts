import { createHash, createHmac, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createRedis, type Redis } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { startServeStack, type ServeStack } from '../webhooks-in/serve-stack';

/**
 * Issue 37's attacks on HubSpot's signed endpoints, replayed against `verify-hub serve` as they were
 * made: a v1 signature on a 30-day-old event, stale v3 headers stripped to leave v1, a v2 action call
 * with a year-old timestamp, an action call from a portal the hub is not connected to, and a replayed
 * callbackId. Each must be refused (or answered without work): nothing stored, queued or spent.
 * Signatures are computed here with node:crypto as HubSpot documents them.
 */
const SECRET = `app-secret-${randomUUID()}`;
const CONNECTED = '4242';
const STRANGER = '9191';
const TOKEN = `token-${randomUUID()}`;
const DAY = 86_400_000;

const hubspot = new FakeHubSpot();
let stack: ServeStack;
let redis: Redis;
let ingest: Queue;

beforeAll(async () => {
  await hubspot.start();
  hubspot.addPortal({ portalId: CONNECTED, token: TOKEN });
  stack = await startServeStack('sec-hubspot', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_SECRET: SECRET, HUBSPOT_API_BASE: hubspot.url });
  await stack.hub.pipeline.connections!.save(privateConnection(hubspot, CONNECTED, TOKEN));
  redis = createRedis(process.env.REDIS_URL!);
  ingest = new Queue(`${stack.prefix}-webhook-ingest`, { connection: redis });
});
afterAll(async () => {
  await ingest.close();
  await redis.quit();
  await stack.close();
  await hubspot.stop();
});

const v1 = (body: string) => createHash('sha256').update(SECRET + body, 'utf8').digest('hex');
const v2 = (url: string, body: string) => createHash('sha256').update(`${SECRET}POST${url}${body}`, 'utf8').digest('hex');
const v3 = (url: string, body: string, timestamp: number) => createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64');

async function post(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${stack.hub.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: (await res.json()) as { error?: string; outputFields?: Record<string, string> } };
}

async function storedDeliveries(): Promise<number> {
  const counts = await ingest.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

function webhookBody(occurredAt: number): string {
  return JSON.stringify([{ eventId: 1, subscriptionId: 5, portalId: Number(CONNECTED), appId: 77, occurredAt, subscriptionType: 'contact.creation', attemptNumber: 0, objectId: 123, changeSource: 'CRM' }]);
}

function actionBody(portal: string, email: string, callbackId = `ap-${randomUUID()}`): string {
  return JSON.stringify({ callbackId, origin: { portalId: Number(portal), actionDefinitionId: 7 }, object: { objectId: 9, objectType: 'CONTACT' }, inputFields: { email } });
}

describe('POST /webhooks/hubspot: no signature downgrade', () => {
  it('refuses a v1 signature on an event dated 30 days ago: nothing stored', async () => {
    const body = webhookBody(Date.now() - 30 * DAY);
    const res = await post('/webhooks/hubspot', body, { 'x-hubspot-signature': v1(body), 'x-hubspot-signature-version': 'v1' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/X-HubSpot-Signature-v3: missing/);
    expect(await storedDeliveries()).toBe(0);
  });

  it('refuses stale v3 headers, and the same request with them stripped and the v1 signature left', async () => {
    const body = webhookBody(Date.now() - 10 * 60_000);
    const url = `${stack.hub.url}/webhooks/hubspot`;
    const stale = Date.now() - 10 * 60_000;
    const full = { 'x-hubspot-signature-v3': v3(url, body, stale), 'x-hubspot-request-timestamp': String(stale), 'x-hubspot-signature': v1(body), 'x-hubspot-signature-version': 'v1' };
    const refused = await post('/webhooks/hubspot', body, full);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/older than 5 minutes/);
    const stripped = await post('/webhooks/hubspot', body, { 'x-hubspot-signature': full['x-hubspot-signature'], 'x-hubspot-signature-version': 'v1' });
    expect(stripped.status).toBe(401);
    // An invalid v3 beside a valid v1 is refused too.
    const forged = await post('/webhooks/hubspot', body, { ...full, 'x-hubspot-request-timestamp': String(Date.now()) });
    expect(forged.status).toBe(401);
    expect(await storedDeliveries()).toBe(0);
  });

  it("drops an event older than HubSpot's 24-hour retry window even in a freshly signed delivery", async () => {
    const body = webhookBody(Date.now() - 30 * DAY);
    const url = `${stack.hub.url}/webhooks/hubspot`;
    const now = Date.now();
    const res = await post('/webhooks/hubspot', body, { 'x-hubspot-signature-v3': v3(url, body, now), 'x-hubspot-request-timestamp': String(now) });
    expect(res).toEqual({ status: 200, body: { received: 0 } });
    expect(await storedDeliveries()).toBe(0);
  });

  it('still accepts a fresh v3 delivery (the refusals are not a closed door)', async () => {
    const body = webhookBody(Date.now());
    const url = `${stack.hub.url}/webhooks/hubspot`;
    const now = Date.now();
    const res = await post('/webhooks/hubspot', body, { 'x-hubspot-signature-v3': v3(url, body, now), 'x-hubspot-request-timestamp': String(now) });
    expect(res).toEqual({ status: 200, body: { received: 1 } });
  });
});

describe('POST /actions/hubspot', () => {
  it('refuses a v2 call carrying a year-old timestamp, and a v1 call: no job, no engine call', async () => {
    const email = `old-${randomUUID().slice(0, 6)}@example.com`;
    const body = actionBody(CONNECTED, email);
    const url = `${stack.hub.url}/actions/hubspot`;
    const yearOld = await post('/actions/hubspot', body, { 'x-hubspot-signature': v2(url, body), 'x-hubspot-signature-version': 'v2', 'x-hubspot-request-timestamp': String(Date.now() - 365 * DAY) });
    expect(yearOld.status).toBe(401);
    expect(yearOld.body.error).toMatch(/older than 5 minutes/);
    const v1Call = await post('/actions/hubspot', body, { 'x-hubspot-signature': v1(body), 'x-hubspot-signature-version': 'v1' });
    expect(v1Call.status).toBe(401);
    const v2BesideBadV3 = await post('/actions/hubspot', body, { 'x-hubspot-signature': v2(url, body), 'x-hubspot-signature-version': 'v2', 'x-hubspot-signature-v3': 'bm90IGl0', 'x-hubspot-request-timestamp': String(Date.now()) });
    expect(v2BesideBadV3.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(stack.engine.callsFor(email)).toBe(0);
  });

  it('answers a portal with no connection with FAIL_CONTINUE and PORTAL_NOT_CONNECTED: no engine call, nothing billed', async () => {
    const before = stack.engine.requests.length;
    const url = `${stack.hub.url}/actions/hubspot`;
    for (let i = 0; i < 3; i++) {
      const body = actionBody(STRANGER, `stranger-${i}-${randomUUID().slice(0, 6)}@example.com`);
      const now = Date.now();
      const res = await post('/actions/hubspot', body, { 'x-hubspot-signature-v3': v3(url, body, now), 'x-hubspot-request-timestamp': String(now) });
      expect(res).toEqual({ status: 200, body: { outputFields: { hs_execution_state: 'FAIL_CONTINUE', errorCode: 'PORTAL_NOT_CONNECTED' } } });
    }
    // Give a wrongly queued job the time to reach the engine before counting.
    await new Promise((r) => setTimeout(r, 1000));
    expect(stack.engine.requests.length).toBe(before);
  });

  it('answers a replayed callbackId as the first call, with one job and one engine call (v2, no timestamp)', async () => {
    const email = `replay-${randomUUID().slice(0, 6)}@example.com`;
    const callbackId = hubspot.actions.issueCallback(CONNECTED);
    const body = actionBody(CONNECTED, email, callbackId);
    const url = `${stack.hub.url}/actions/hubspot`;
    const headers = { 'x-hubspot-signature': v2(url, body), 'x-hubspot-signature-version': 'v2' };
    const first = await post('/actions/hubspot', body, headers);
    expect(first.body.outputFields?.hs_execution_state).toBe('BLOCK');
    const deadline = Date.now() + 20_000;
    while (hubspot.actions.completions.filter((c) => c.callbackId === callbackId).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // The same call again once it was completed (its job may be gone): the first answer, no new work.
    const again = await post('/actions/hubspot', body, headers);
    expect(again).toEqual(first);
    await new Promise((r) => setTimeout(r, 1000));
    expect(stack.engine.callsFor(email)).toBe(1);
    expect(hubspot.actions.completions.filter((c) => c.callbackId === callbackId)).toHaveLength(1);
  });
});
