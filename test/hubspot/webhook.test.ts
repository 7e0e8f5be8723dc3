import { createHash, createHmac } from 'node:crypto';
import { WebhookRejectedError, type RawWebhookRequest } from '@verify-hub/core';
import { parse, verifyActionSignature } from '../../connectors/hubspot/src/webhook';

/**
 * Signature vectors are computed here with node:crypto, following HubSpot's documentation, never
 * by calling the code under test. v1 and v2 also use the examples published in HubSpot's docs.
 */
const SECRET = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const NOW = Date.parse('2026-11-21T12:00:00Z');

const event = (over: Record<string, unknown> = {}) => ({
  eventId: 100, subscriptionId: 5, portalId: 62515, appId: 54321, occurredAt: NOW - 1000,
  subscriptionType: 'contact.propertyChange', attemptNumber: 0, objectId: 123, changeSource: 'CRM',
  propertyName: 'email', propertyValue: 'new@example.com', ...over,
});

function v3Request(body: string, opts: { url?: string; signedUrl?: string; secret?: string; timestamp?: number; method?: string } = {}): RawWebhookRequest {
  const url = opts.url ?? 'https://hub.example.com/webhooks/hubspot';
  const timestamp = String(opts.timestamp ?? NOW - 2000);
  const method = opts.method ?? 'POST';
  const signature = createHmac('sha256', opts.secret ?? SECRET).update(`${method}${opts.signedUrl ?? url}${body}${timestamp}`, 'utf8').digest('base64');
  return {
    method, url, body: Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp },
  };
}

const rejected = (fn: () => unknown, status: number, message?: RegExp) => {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(WebhookRejectedError);
  expect((error as WebhookRejectedError).status).toBe(status);
  if (message) expect((error as Error).message).toMatch(message);
};

describe('HubSpot webhook signature v3', () => {
  it('accepts a correctly signed delivery and returns the email change', () => {
    const body = JSON.stringify([event()]);
    expect(parse(v3Request(body), SECRET, NOW)).toEqual([
      { platform: 'hubspot', kind: 'email_changed', accountId: '62515', contactId: '123', email: 'new@example.com', occurredAt: NOW - 1000, dedupeKey: `hubspot:62515:123:${NOW - 1000}` },
    ]);
  });

  it('signs the URI with HubSpot\'s characters decoded: percent-encoded URIs verify', () => {
    const body = JSON.stringify([event()]);
    const url = 'https://hub.example.com/webhooks/hubspot?portal=62515&redirect=https%3A%2F%2Fapp.example.com%2Fdone%3Fx%3D1&who=a%40b.c%2C%21%24%27%28%29%2A%3B&space=a%20b';
    // HubSpot decodes exactly these: %3A %2F %3F %40 %21 %24 %27 %28 %29 %2A %2C %3B (and not %20).
    const signedUrl = "https://hub.example.com/webhooks/hubspot?portal=62515&redirect=https://app.example.com/done?x%3D1&who=a@b.c,!$'()*;&space=a%20b";
    expect(parse(v3Request(body, { url, signedUrl }), SECRET, NOW)).toHaveLength(1);
    // Signed over the raw encoded URI instead: does not verify.
    rejected(() => parse(v3Request(body, { url, signedUrl: url }), SECRET, NOW), 401, /Signature-v3: does not match/);
  });

  it('rejects a wrong secret, a modified body, another method, and a missing signature', () => {
    const body = JSON.stringify([event()]);
    rejected(() => parse(v3Request(body, { secret: 'another-secret' }), SECRET, NOW), 401, /does not match/);
    const modified = v3Request(body);
    modified.body = Buffer.from(body.replace('new@example.com', 'evil@example.com'));
    rejected(() => parse(modified, SECRET, NOW), 401, /does not match/);
    const otherMethod = v3Request(body);
    otherMethod.method = 'PUT';
    rejected(() => parse(otherMethod, SECRET, NOW), 401);
    const unsigned = v3Request(body);
    unsigned.headers = { 'content-type': 'application/json' };
    rejected(() => parse(unsigned, SECRET, NOW), 401, /missing/);
    rejected(() => parse(v3Request(body), '', NOW), 401);
  });

  it('rejects a timestamp older than 5 minutes, a far-future one, and one that is not a number', () => {
    const body = JSON.stringify([event()]);
    rejected(() => parse(v3Request(body, { timestamp: NOW - 5 * 60_000 - 1 }), SECRET, NOW), 401, /older than 5 minutes/);
    expect(parse(v3Request(body, { timestamp: NOW - 5 * 60_000 + 1000 }), SECRET, NOW)).toHaveLength(1);
    rejected(() => parse(v3Request(body, { timestamp: NOW + 10 * 60_000 }), SECRET, NOW), 401);
    const bad = v3Request(body);
    bad.headers['x-hubspot-request-timestamp'] = 'yesterday';
    rejected(() => parse(bad, SECRET, NOW), 401, /Timestamp/);
  });
});

describe('HubSpot signatures v1 and v2: never on webhooks, v2 only on workflow-action calls', () => {
  // The example of HubSpot's v1 documentation, and its published hash.
  const DOC_BODY = '[{"eventId":1,"subscriptionId":12345,"portalId":62515,"occurredAt":1564113600000,"subscriptionType":"contact.creation","attemptNumber":0,"objectId":123,"changeSource":"CRM","changeFlag":"NEW","appId":54321}]';
  const legacy = (version: string, signature: string, body: string, url = 'https://www.example.com/webhook_uri', method = 'POST'): RawWebhookRequest => ({
    method, url, body: Buffer.from(body), headers: { 'x-hubspot-signature': signature, 'x-hubspot-signature-version': version },
  });

  it("refuses a webhook signed with v1 alone, even HubSpot's published example (no timestamp: replayable)", () => {
    expect(createHash('sha256').update(SECRET + DOC_BODY).digest('hex')).toBe('232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817de');
    rejected(() => parse(legacy('v1', '232db2615f3d666fe21a8ec971ac7b5402d33b9a925784df3ca654d05f4817de', DOC_BODY), SECRET, NOW), 401, /X-HubSpot-Signature-v3: missing/);
    const body = JSON.stringify([event()]);
    const url = 'https://hub.example.com/webhooks/hubspot';
    rejected(() => parse(legacy('v2', createHash('sha256').update(`${SECRET}POST${url}${body}`).digest('hex'), body, url), SECRET, NOW), 401, /X-HubSpot-Signature-v3: missing/);
  });

  it("verifies an action call's v2 over secret + method + URI + body, against HubSpot's published GET example too; v1 never", () => {
    const body = '{"callbackId":"ap-1"}';
    const url = 'https://hub.example.com/actions/hubspot?x=1';
    const sig = createHash('sha256').update(`${SECRET}POST${url}${body}`).digest('hex');
    expect(() => verifyActionSignature(legacy('v2', sig, body, url), SECRET, NOW)).not.toThrow();
    rejected(() => verifyActionSignature(legacy('v2', sig, body, 'https://hub.example.com/actions/hubspot?x=2'), SECRET, NOW), 401);
    // HubSpot's documented v2 example: GET https://www.example.com/webhook_uri, no body.
    const getSig = createHash('sha256').update(`${SECRET}GEThttps://www.example.com/webhook_uri`).digest('hex');
    expect(getSig).toBe('eee2dddcc73c94d699f5e395f4b9d454a069a6855fbfa152e91e88823087200e');
    expect(() => verifyActionSignature(legacy('v2', getSig, '', 'https://www.example.com/webhook_uri', 'GET'), SECRET, NOW)).not.toThrow();
    rejected(() => verifyActionSignature(legacy('v1', createHash('sha256').update(SECRET + body).digest('hex'), body, url), SECRET, NOW), 401, /v1 is refused/);
    rejected(() => verifyActionSignature(legacy('v9', sig, body, url), SECRET, NOW), 401, /v9 is refused/);
  });

  it('refuses v2 beside a v3 header that does not verify, and v2 with a stale timestamp', () => {
    const body = '{"callbackId":"ap-2"}';
    const url = 'https://hub.example.com/actions/hubspot';
    const good = legacy('v2', createHash('sha256').update(`${SECRET}POST${url}${body}`).digest('hex'), body, url);
    rejected(() => verifyActionSignature({ ...good, headers: { ...good.headers, 'x-hubspot-signature-v3': 'AAAA', 'x-hubspot-request-timestamp': String(NOW) } }, SECRET, NOW), 401, /Signature-v3: does not match/);
    rejected(() => verifyActionSignature({ ...good, headers: { ...good.headers, 'x-hubspot-request-timestamp': String(NOW - 365 * 86_400_000) } }, SECRET, NOW), 401, /older than 5 minutes/);
  });
});

describe('HubSpot webhook events', () => {
  const signed = (events: unknown) => v3Request(typeof events === 'string' ? events : JSON.stringify(events));

  it('keeps contact creations and email changes, drops other events and cleared emails', () => {
    const events = [
      event({ eventId: 1, objectId: 1, subscriptionType: 'contact.creation', propertyName: undefined, propertyValue: undefined }),
      event({ eventId: 2, objectId: 2, propertyName: 'firstname', propertyValue: 'Ann' }),
      event({ eventId: 3, objectId: 3, subscriptionType: 'deal.creation' }),
      event({ eventId: 4, objectId: 4, propertyValue: '' }),
      event({ eventId: 5, objectId: 5, subscriptionType: 'contact.deletion' }),
      event({ eventId: 6, objectId: 6, subscriptionType: 'object.propertyChange', objectTypeId: '0-1' }),
      event({ eventId: 7, objectId: 7, subscriptionType: 'object.creation', objectTypeId: '0-2' }),
    ];
    expect(parse(signed(events), SECRET, NOW).map((e) => [e.contactId, e.kind])).toEqual([['1', 'created'], ['6', 'email_changed']]);
  });

  it('drops duplicate deliveries (eventId is not unique: keyed on portal + object + occurredAt)', () => {
    const twice = [event({ eventId: 9 }), event({ eventId: 9 }), event({ eventId: 10 })];
    const out = parse(signed(twice), SECRET, NOW);
    expect(out).toHaveLength(1);
    // The same contact id in another portal is another contact.
    expect(parse(signed([event(), event({ portalId: 99 })]), SECRET, NOW).map((e) => e.accountId).sort()).toEqual(['62515', '99']);
  });

  it('handles out-of-order events: each contact\'s latest change wins, oldest contact first', () => {
    const events = [
      event({ objectId: 1, occurredAt: NOW - 100, propertyValue: 'newest@example.com' }),
      event({ objectId: 1, occurredAt: NOW - 300, propertyValue: 'oldest@example.com' }),
      event({ objectId: 2, occurredAt: NOW - 500, propertyValue: 'two@example.com' }),
      event({ objectId: 1, occurredAt: NOW - 200, propertyValue: 'middle@example.com' }),
      event({ objectId: 3, occurredAt: NOW - 50, subscriptionType: 'contact.creation', propertyName: undefined, propertyValue: undefined }),
      event({ objectId: 3, occurredAt: NOW - 50, propertyValue: 'three@example.com' }),
    ];
    expect(parse(signed(events), SECRET, NOW).map((e) => [e.contactId, e.email])).toEqual([
      ['2', 'two@example.com'], ['1', 'newest@example.com'], ['3', 'three@example.com'],
    ]);
  });

  it('answers 400 for bodies that are not an event array, naming the field, and 413 over 100 events', () => {
    rejected(() => parse(signed('not json'), SECRET, NOW), 400, /not JSON/);
    rejected(() => parse(signed({ events: [] }), SECRET, NOW), 400, /array/);
    rejected(() => parse(signed([event(), event({ objectId: 'abc' })]), SECRET, NOW), 400, /body\[1\]\.objectId/);
    rejected(() => parse(signed([event({ occurredAt: undefined })]), SECRET, NOW), 400, /body\[0\]\.occurredAt/);
    rejected(() => parse(signed(Array.from({ length: 101 }, (_, i) => event({ objectId: i }))), SECRET, NOW), 413, /101 events/);
    expect(parse(signed(Array.from({ length: 100 }, (_, i) => event({ objectId: i }))), SECRET, NOW)).toHaveLength(100);
  });
});

describe('HubSpot contact.privacyDeletion', () => {
  // The shape HubSpot documents for a GDPR delete: the contact id, no address.
  const deletion = (over: Record<string, unknown> = {}) => ({
    eventId: 3816279340, subscriptionId: 25, portalId: 62515, appId: 54321, occurredAt: NOW - 500,
    subscriptionType: 'contact.privacyDeletion', attemptNumber: 0, objectId: 123, changeFlag: 'PRIVACY_DELETED', changeSource: 'GDPR', ...over,
  });

  it('becomes a privacy_deletion event carrying the contact id and no address', () => {
    expect(parse(v3Request(JSON.stringify([deletion()])), SECRET, NOW)).toEqual([
      { platform: 'hubspot', kind: 'privacy_deletion', accountId: '62515', contactId: '123', occurredAt: NOW - 500, dedupeKey: `hubspot:62515:123:${NOW - 500}` },
    ]);
  });

  it('is kept over a later event of the same contact in the delivery', () => {
    const body = JSON.stringify([deletion(), event({ occurredAt: NOW - 100 }), deletion({ objectId: 7, subscriptionType: 'object.privacyDeletion', objectTypeId: '0-1' })]);
    const events = parse(v3Request(body), SECRET, NOW);
    expect(events.map((e) => [e.contactId, e.kind])).toEqual([['123', 'privacy_deletion'], ['7', 'privacy_deletion']]);
  });

  it('of another object type is ignored', () => {
    expect(parse(v3Request(JSON.stringify([deletion({ subscriptionType: 'object.privacyDeletion', objectTypeId: '0-2' })])), SECRET, NOW)).toEqual([]);
  });
});
