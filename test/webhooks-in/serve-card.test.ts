import { randomUUID } from 'node:crypto';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { startServeStack, type ServeStack } from './serve-stack';

/**
 * The contact card's data endpoint through `verify-hub serve`, called as HubSpot's `hubspot.fetch`
 * calls it (FakeHubSpot adds portalId and the user to the URL and signs with v3): the stored verdict,
 * "Verify again" through the engine (stored for the next look), and unsigned, forged, stale, tampered
 * or unconnected requests refused.
 */
const PORTAL = '828';
const hubspot = new FakeHubSpot();

describe('the HubSpot contact card through verify-hub serve', () => {
  let stack: ServeStack;
  let verdictUrl: string;
  let verifyUrl: string;
  beforeAll(async () => {
    await hubspot.start();
    hubspot.addPortal({ portalId: PORTAL, token: 'token-828' });
    stack = await startServeStack('card', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret, HUBSPOT_API_BASE: hubspot.url });
    await stack.hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, 'token-828'));
    verdictUrl = `${stack.hub.url}/platforms/hubspot/cards/verdict`;
    verifyUrl = `${stack.hub.url}/platforms/hubspot/cards/verify`;
  });
  afterAll(async () => {
    await stack.close();
    await hubspot.stop();
  });

  it('answers "not checked yet", verifies on request once, then answers with the stored verdict', async () => {
    const email = `notchecked.${randomUUID().slice(0, 6)}@example.com`;
    const first = await hubspot.uiExtensionFetch(verdictUrl, { portalId: PORTAL, body: { email, objectId: 51 } });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ checked: false, email });
    expect(stack.engine.callsFor(email)).toBe(0);

    const fresh = await hubspot.uiExtensionFetch(verifyUrl, { portalId: PORTAL, body: { email, objectId: 51 } });
    expect(fresh.status).toBe(200);
    const view = (await fresh.json()) as { checked: boolean; risk: string; score: number; checkedAt: string; checks: { check: string; value: string; checked: boolean }[] };
    expect(view).toMatchObject({ checked: true, email, risk: 'risky', score: expect.any(Number), checkedAt: expect.any(String) });
    // The engine made no SMTP conversation: the mailbox check says so, never "no".
    expect(view.checks.find((c) => c.check === 'smtp')).toMatchObject({ value: 'not checked', checked: false });
    expect(view.checks.find((c) => c.check === 'catchAll')).toMatchObject({ value: 'no', checked: true });
    expect(stack.engine.callsFor(email)).toBe(1);

    const stored = await hubspot.uiExtensionFetch(verdictUrl, { portalId: PORTAL, body: { email } });
    expect(await stored.json()).toEqual(view);
    expect(stack.engine.callsFor(email)).toBe(1);
  });

  it('refuses unsigned, forged, stale and tampered requests, and portals not connected, before any lookup', async () => {
    const email = `safe.${randomUUID().slice(0, 6)}@example.com`;
    const statusOf = async (response: Promise<Response>) => {
      const res = await response;
      return { status: res.status, error: ((await res.json()) as { error: string }).error };
    };
    expect(await statusOf(hubspot.uiExtensionFetch(verifyUrl, { portalId: PORTAL, body: { email }, sign: { unsigned: true } }))).toEqual({ status: 401, error: expect.stringMatching(/X-HubSpot-Signature-v3: missing/) });
    expect(await statusOf(hubspot.uiExtensionFetch(verifyUrl, { portalId: PORTAL, body: { email }, sign: { secret: 'not-the-app-secret' } }))).toEqual({ status: 401, error: expect.stringMatching(/does not match/) });
    expect(await statusOf(hubspot.uiExtensionFetch(verifyUrl, { portalId: PORTAL, body: { email }, sign: { timestamp: Date.now() - 6 * 60_000 } }))).toEqual({ status: 401, error: expect.stringMatching(/older than 5 minutes/) });
    // Signed for one portal, replayed with another portal's id in the URL.
    const signed = await hubspot.uiExtensionFetch(`${verifyUrl}?portalId=1`, { portalId: PORTAL, body: { email } }).catch(() => undefined);
    expect(signed?.status).toBe(200); // the fake sets portalId itself: a genuine request
    const tampered = await fetch(`${verifyUrl}?portalId=999&userId=1&userEmail=user%40example.com&appId=4242`, {
      method: 'POST', body: JSON.stringify({ email }), headers: { 'content-type': 'application/json', 'x-hubspot-request-timestamp': String(Date.now()), 'x-hubspot-signature-v3': 'AAAA' },
    });
    expect(tampered.status).toBe(401);
    expect(await statusOf(hubspot.uiExtensionFetch(verifyUrl, { portalId: '999', body: { email } }))).toEqual({ status: 403, error: 'portalId: HubSpot portal 999 is not connected to the hub' });
    expect(await statusOf(hubspot.uiExtensionFetch(verdictUrl, { portalId: PORTAL, body: { objectId: 5 } }))).toEqual({ status: 400, error: expect.stringMatching(/^body\.email: is required/) });
    // Only the one genuine request reached the engine.
    expect(stack.engine.callsFor(email)).toBe(1);
  });
});
