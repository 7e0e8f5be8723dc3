import { createHmac } from 'node:crypto';
import { WebhookRejectedError, type RawWebhookRequest } from '@verify-hub/core';
import { parseWebhook, subscriberHash } from '@verify-hub/connector-mailchimp';

const SECRET = 's3cret-path-token-0123456789abcdef';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function request(method: string, body: string | Record<string, string>, headers: Record<string, string> = FORM): RawWebhookRequest {
  const text = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  return { method, url: `https://hub.example.com/webhooks/mailchimp/conn1/${SECRET}`, headers, body: Buffer.from(text) };
}

function rejected(fn: () => unknown): WebhookRejectedError {
  try {
    fn();
  } catch (e) {
    if (e instanceof WebhookRejectedError) return e;
    throw e;
  }
  throw new Error('not rejected');
}

const subscribe = {
  type: 'subscribe',
  fired_at: '2026-11-21 10:15:30',
  'data[id]': '8a25ff1d98',
  'data[list_id]': 'a6b5da1054',
  'data[email]': 'New.Person@Example.com',
  'data[email_type]': 'html',
  'data[merges][EMAIL]': 'New.Person@Example.com',
  'data[merges][FNAME]': 'New',
  'data[ip_opt]': '10.20.10.30',
};

test('a bad or missing secret is rejected with 401, even for the GET check, and never echoed', () => {
  for (const presented of ['wrong', '', `${SECRET}x`, SECRET.slice(0, -1)]) {
    const e = rejected(() => parseWebhook(request('POST', subscribe), presented, SECRET));
    expect(e.status).toBe(401);
    expect(e.message).not.toContain(SECRET);
  }
  expect(rejected(() => parseWebhook(request('GET', ''), SECRET, '')).status).toBe(401); // no secret configured
  expect(rejected(() => parseWebhook(request('GET', ''), 'x', SECRET)).status).toBe(401);
});

test("GET (Mailchimp's URL check) and an empty POST give no events", () => {
  expect(parseWebhook(request('GET', '', {}), SECRET, SECRET)).toEqual([]);
  expect(parseWebhook(request('POST', '', {}), SECRET, SECRET)).toEqual([]);
  expect(parseWebhook(request('POST', '  \n'), SECRET, SECRET)).toEqual([]);
});

test('subscribe becomes a created event keyed by list and subscriber hash', () => {
  const [event, ...rest] = parseWebhook(request('POST', subscribe), SECRET, SECRET);
  expect(rest).toEqual([]);
  expect(event).toEqual({
    platform: 'mailchimp',
    kind: 'created',
    accountId: 'a6b5da1054',
    contactId: subscriberHash('new.person@example.com'),
    email: 'New.Person@Example.com',
    occurredAt: Date.parse('2026-11-21T10:15:30Z'),
    dedupeKey: `mailchimp:a6b5da1054:subscribe:${subscriberHash('new.person@example.com')}:${Date.parse('2026-11-21T10:15:30Z')}`,
  });
  // The same delivery twice has the same dedupe key.
  expect(parseWebhook(request('POST', subscribe), SECRET, SECRET)[0]!.dedupeKey).toBe(event!.dedupeKey);
});

test('upemail becomes email_changed for the new address', () => {
  const body = { type: 'upemail', fired_at: '2026-11-21 11:00:00', 'data[list_id]': 'a6b5da1054', 'data[new_id]': '51aa6d8a7b', 'data[new_email]': 'moved@example.org', 'data[old_email]': 'old@example.org' };
  const [event] = parseWebhook(request('POST', body), SECRET, SECRET);
  expect(event).toMatchObject({ kind: 'email_changed', email: 'moved@example.org', contactId: subscriberHash('moved@example.org') });
});

test('unsubscribe and cleaned are acknowledged as events that cancel pending work; profile and campaign are ignored', () => {
  const base = { fired_at: '2026-11-21 12:00:00', 'data[list_id]': 'L1', 'data[email]': 'gone@example.com' };
  expect(parseWebhook(request('POST', { ...base, type: 'unsubscribe', 'data[action]': 'unsub', 'data[reason]': 'manual' }), SECRET, SECRET)).toMatchObject([{ kind: 'unsubscribed' }]);
  expect(parseWebhook(request('POST', { ...base, type: 'cleaned', 'data[reason]': 'hard' }), SECRET, SECRET)).toMatchObject([{ kind: 'cleaned', email: 'gone@example.com' }]);
  expect(parseWebhook(request('POST', { ...base, type: 'profile', 'data[merges][EVRISK]': 'safe' }), SECRET, SECRET)).toEqual([]);
  expect(parseWebhook(request('POST', { type: 'campaign', fired_at: '2026-11-21 12:00:00', 'data[id]': 'c1' }), SECRET, SECRET)).toEqual([]);
});

test('oversized bodies get 413; malformed ones 400 naming the field', () => {
  const big = request('POST', { ...subscribe, 'data[merges][NOTES]': 'x'.repeat(70 * 1024) });
  expect(rejected(() => parseWebhook(big, SECRET, SECRET)).status).toBe(413);
  expect(parseWebhook(big, SECRET, SECRET, { maxBodyBytes: 128 * 1024 })).toHaveLength(1);
  const cases: [Record<string, string> | string, RegExp, Record<string, string>?][] = [
    [{ fired_at: '2026-11-21 10:15:30', 'data[email]': 'a@b.c' }, /^type: missing/],
    [{ ...subscribe, 'data[list_id]': '' }, /^data\[list_id\]: missing/],
    [{ ...subscribe, fired_at: 'soon' }, /^fired_at: not a date/],
    [{ ...subscribe, 'data[email]': 'not-an-address' }, /^data\[email\]: not an email address/],
    [{ type: 'upemail', fired_at: '2026-11-21 11:00:00', 'data[list_id]': 'L1' }, /^data\[new_email\]: missing/],
    ['{"type":"subscribe"}', /^content-type:/, { 'content-type': 'application/json' }],
  ];
  for (const [body, message, headers] of cases) {
    const e = rejected(() => parseWebhook(request('POST', body, headers ?? FORM), SECRET, SECRET));
    expect([e.status, e.message]).toEqual([400, expect.stringMatching(message)]);
  }
  expect(rejected(() => parseWebhook(request('PUT', subscribe), SECRET, SECRET)).status).toBe(400);
});

test('an unsubscribe with data[action]=delete (member deleted) becomes a privacy_deletion; action=unsub stays an unsubscribe', () => {
  const unsubscribe = {
    type: 'unsubscribe', fired_at: '2026-11-21 11:00:00', 'data[action]': 'delete', 'data[reason]': 'manual', 'data[id]': '8a25ff1d98',
    'data[list_id]': 'a6b5da1054', 'data[email]': 'Gone.Person@Example.com', 'data[email_type]': 'html', 'data[merges][EMAIL]': 'Gone.Person@Example.com', 'data[ip_opt]': '10.20.10.30',
  };
  const occurredAt = Date.parse('2026-11-21T11:00:00Z');
  const contactId = subscriberHash('Gone.Person@Example.com');
  expect(parseWebhook(request('POST', unsubscribe), SECRET, SECRET)).toEqual([
    { platform: 'mailchimp', kind: 'privacy_deletion', accountId: 'a6b5da1054', contactId, email: 'Gone.Person@Example.com', occurredAt, dedupeKey: `mailchimp:a6b5da1054:unsubscribe:${contactId}:${occurredAt}` },
  ]);
  expect(parseWebhook(request('POST', { ...unsubscribe, 'data[action]': 'unsub' }), SECRET, SECRET).map((e) => e.kind)).toEqual(['unsubscribed']);
});

describe("signed deliveries (Mailchimp's X-Mailchimp-Signature)", () => {
  const SIGNING = 'whsec-0123456789abcdef0123456789abcdef';
  const NOW = Date.parse('2026-11-21T10:15:35Z');
  const body = new URLSearchParams(subscribe).toString();
  // Mailchimp's recipe written out here, apart from the connector: HMAC-SHA256 of "<t>.<raw body>", hex.
  const sign = (secret: string, text: string, t: number) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${text}`).digest('hex')}`;
  const signed = (header: string | undefined, text = body) => request('POST', text, { ...FORM, ...(header === undefined ? {} : { 'x-mailchimp-signature': header }) });
  const t = Math.floor(NOW / 1000);

  it('accepts a delivery signed over its raw bytes with the signing secret, within 5 minutes', () => {
    for (const at of [t, t - 299, t + 299]) {
      expect(parseWebhook(signed(sign(SIGNING, body, at)), SECRET, SECRET, { signingSecret: SIGNING, now: NOW })).toHaveLength(1);
    }
    // A second v1 (a secret being rotated) may stand beside the right one.
    expect(parseWebhook(signed(`${sign('old', body, t)},v1=${sign(SIGNING, body, t).split('v1=')[1]}`), SECRET, SECRET, { signingSecret: SIGNING, now: NOW })).toHaveLength(1);
  });

  it('refuses unsigned, forged, altered, stale and malformed deliveries once signing is on (401, the secret never echoed)', () => {
    const cases: [string | undefined, string, RegExp][] = [
      [undefined, body, /missing/],
      [sign('another-secret', body, t), body, /does not match/],
      [sign(SIGNING, body, t), body.replace('New.Person', 'Evil.Person'), /does not match/],
      [sign(SIGNING, body, t - 301), body, /more than 5 minutes/],
      [sign(SIGNING, body, t + 301), body, /more than 5 minutes/],
      ['v1=abc', body, /not t=<seconds>,v1=<hex>/],
      [`t=${t}`, body, /not t=<seconds>,v1=<hex>/],
    ];
    for (const [header, text, why] of cases) {
      const e = rejected(() => parseWebhook(signed(header, text), SECRET, SECRET, { signingSecret: SIGNING, now: NOW }));
      expect(e.status).toBe(401);
      expect(e.message).toMatch(why);
      expect(e.message).not.toContain(SIGNING);
    }
  });

  it('keeps the URL secret as a second factor, and asks for no signature without a signing secret', () => {
    expect(rejected(() => parseWebhook(signed(sign(SIGNING, body, t)), 'wrong', SECRET, { signingSecret: SIGNING, now: NOW })).message).toMatch(/webhook secret/);
    expect(parseWebhook(signed(undefined), SECRET, SECRET, { now: NOW })).toHaveLength(1);
    // Mailchimp's GET check of the URL carries no body to sign.
    expect(parseWebhook(request('GET', ''), SECRET, SECRET, { signingSecret: SIGNING, now: NOW })).toEqual([]);
  });
});
