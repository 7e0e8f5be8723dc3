import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookRejectedError, type BounceEvent, type ContactEvent, type DeliveryRecord, type RawWebhookRequest } from '@verify-hub/core';
import { subscriberHash } from './subscriber-hash';

/**
 * Mailchimp audience webhooks, parsed (pure: no I/O, no clock unless `now` is missing).
 *
 * Two factors. The secret in the webhook URL path, `/webhooks/mailchimp/:connection/:secret`: the
 * receiver passes the `:secret` it got and the one it stored for the connection; they are compared in
 * constant time. And, for a webhook registered with signing (Mailchimp returns its signing secret
 * once, at creation), Mailchimp's signature: `X-Mailchimp-Signature: t=<unix seconds>,v1=<hex>`, the
 * HMAC-SHA256 of `<t>.<raw body>` with the signing secret (Mailchimp's "Verifying webhook
 * signatures"). Once a connection holds a signing secret, an unsigned, wrongly signed or stale
 * (more than 5 minutes) POST is refused.
 *
 * - bad or missing secret -> WebhookRejectedError 401;
 * - signing on and the signature missing, wrong or stale -> 401;
 * - GET (Mailchimp's URL check) and an empty POST -> [] (answer 200);
 * - body over `maxBodyBytes` -> 413; not form-encoded, or a field missing -> 400 naming the field;
 * - `subscribe` -> kind `created`; `upemail` -> `email_changed` (the new address);
 * - `unsubscribe` -> `unsubscribed`, `cleaned` -> `cleaned` (so pending work can be cancelled), which is
 *   also a bounce (core's BounceEvent): `data[reason]` `hard` a hard bounce, `abuse` an abuse report
 *   (a policy record: it says nothing of the mailbox), `data[campaign_id]` the campaign;
 * - `unsubscribe` with `data[action]=delete` (the member was deleted) -> `privacy_deletion`: the
 *   webhook says the same for an archived member and a permanently deleted one, so the hub treats
 *   both as a deletion and erases what it holds of the address (the cost of being wrong is one
 *   re-verification if an archived member comes back; the other way round would keep data a user
 *   asked to be erased);
 * - `profile`, `campaign` and anything else -> [] (acknowledged; `profile` also fires for the
 *   hub's own merge-field writes, so acting on it would loop).
 *
 * Events carry `accountId` = list id and `contactId` = subscriber hash (md5 of the lower-cased
 * address), which `MailchimpConnector.pullByIds` reads.
 */
export interface MailchimpWebhookOptions {
  /** Largest body accepted; Mailchimp's are a few KB. Default 64 KiB. */
  maxBodyBytes?: number;
  /** The webhook's signing secret, when it was registered with signing: every POST must then be signed with it. */
  signingSecret?: string;
  /** Epoch ms, for the signature's 5-minute window (default Date.now()). */
  now?: number;
}

export const SIGNATURE_HEADER = 'x-mailchimp-signature';
/** Mailchimp's guidance: refuse a signature older (or newer) than 5 minutes, so a captured delivery cannot be replayed later. */
export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

export const DEFAULT_MAX_WEBHOOK_BODY = 64 * 1024;

/** Where Mailchimp posts an audience's changes for a connection: the secret is a path segment (the second factor beside the signature). */
export function webhookPath(connectionId: string, webhookSecret: string): string {
  return `/webhooks/mailchimp/${connectionId}/${webhookSecret}`;
}

/** Whether a webhook's URL is the hub's address for this connection (whatever its host and secret). */
export function isHubWebhookFor(connectionId: string, url: string): boolean {
  return url.includes(webhookPath(connectionId, ''));
}

function sameSecret(presented: string, expected: string): boolean {
  // Hash first so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The `X-Mailchimp-Signature` value for a body: what Mailchimp sends (the fake uses it to sign its deliveries). */
export function mailchimpSignature(signingSecret: string, body: Buffer | string, timestampSeconds: number): string {
  const hmac = createHmac('sha256', signingSecret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${hmac}`;
}

/** Checks Mailchimp's signature of the raw body; throws 401 naming what is wrong. Several `v1` (a rotation) may be present: one must match. */
export function verifyMailchimpSignature(header: string | undefined, body: Buffer, signingSecret: string, now: number): void {
  if (!header) throw new WebhookRejectedError(`${SIGNATURE_HEADER}: missing (this webhook is signed)`, 401);
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = parts.find(([key]) => key === 't')?.[1];
  const signatures = parts.filter(([key, value]) => key === 'v1' && /^[0-9a-f]{64}$/i.test(value ?? '')).map(([, value]) => Buffer.from(value!, 'hex'));
  if (!timestamp || !/^\d+$/.test(timestamp) || signatures.length === 0) throw new WebhookRejectedError(`${SIGNATURE_HEADER}: not t=<seconds>,v1=<hex>`, 401);
  if (Math.abs(now - Number(timestamp) * 1000) > SIGNATURE_TOLERANCE_MS) throw new WebhookRejectedError(`${SIGNATURE_HEADER}: the timestamp is more than 5 minutes away`, 401);
  const expected = createHmac('sha256', signingSecret).update(`${timestamp}.`).update(body).digest();
  if (!signatures.some((given) => timingSafeEqual(given, expected))) throw new WebhookRejectedError(`${SIGNATURE_HEADER}: does not match`, 401);
}

/** `fired_at` is `YYYY-MM-DD HH:MM:SS` (UTC). */
function firedAtMs(value: string | null): number {
  if (!value) throw new WebhookRejectedError('fired_at: missing', 400);
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value.trim()) ? `${value.trim().replace(' ', 'T')}Z` : value.trim());
  if (Number.isNaN(ms)) throw new WebhookRejectedError('fired_at: not a date and time', 400);
  return ms;
}

function email(form: URLSearchParams, field: string): string {
  const value = form.get(field)?.trim();
  if (!value) throw new WebhookRejectedError(`${field}: missing`, 400);
  if (!/^[^@\s]+@[^@\s]+$/.test(value)) throw new WebhookRejectedError(`${field}: not an email address`, 400);
  return value;
}

export function parse(request: RawWebhookRequest, secret: string, expectedSecret: string, options: MailchimpWebhookOptions = {}): ContactEvent[] {
  if (!expectedSecret) throw new WebhookRejectedError('webhook secret: not configured for this connection', 401);
  if (typeof secret !== 'string' || !sameSecret(secret, expectedSecret)) throw new WebhookRejectedError('webhook secret: does not match', 401);

  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') return [];
  if (method !== 'POST') throw new WebhookRejectedError(`method: ${method} is not accepted (GET or POST)`, 400);
  const max = options.maxBodyBytes ?? DEFAULT_MAX_WEBHOOK_BODY;
  if (request.body.length > max) throw new WebhookRejectedError(`body: ${request.body.length} bytes is over the ${max}-byte limit`, 413);
  if (options.signingSecret) verifyMailchimpSignature(request.headers[SIGNATURE_HEADER], request.body, options.signingSecret, options.now ?? Date.now());
  const text = request.body.toString('utf8');
  if (text.trim() === '') return [];
  const contentType = request.headers['content-type'];
  if (contentType && !/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    throw new WebhookRejectedError('content-type: must be application/x-www-form-urlencoded', 400);
  }

  const form = new URLSearchParams(text);
  const type = form.get('type')?.trim();
  if (!type) throw new WebhookRejectedError('type: missing', 400);
  if (!['subscribe', 'upemail', 'unsubscribe', 'cleaned'].includes(type)) return [];
  const listId = form.get('data[list_id]')?.trim();
  if (!listId) throw new WebhookRejectedError('data[list_id]: missing', 400);
  const occurredAt = firedAtMs(form.get('fired_at'));

  const event = (kind: ContactEvent['kind'], address: string): ContactEvent => {
    const contactId = subscriberHash(address);
    return { platform: 'mailchimp', kind, accountId: listId, contactId, email: address, occurredAt, dedupeKey: `mailchimp:${listId}:${type}:${contactId}:${occurredAt}` };
  };
  switch (type) {
    case 'subscribe':
      return [event('created', email(form, 'data[email]'))];
    case 'upemail':
      return [event('email_changed', email(form, 'data[new_email]'))];
    case 'unsubscribe':
      return [event(form.get('data[action]')?.trim() === 'delete' ? 'privacy_deletion' : 'unsubscribed', email(form, 'data[email]'))];
    default:
      return [cleanedEvent(event('cleaned', email(form, 'data[email]')), form)];
  }
}

/** A `cleaned` event carries its delivery record: Mailchimp's reason (`hard` or `abuse`) and campaign. */
function cleanedEvent(base: ContactEvent, form: URLSearchParams): BounceEvent {
  const reason = form.get('data[reason]')?.trim() || undefined;
  const campaign = form.get('data[campaign_id]')?.trim() || undefined;
  const delivery: DeliveryRecord = {
    contactId: base.contactId,
    email: base.email!,
    outcome: 'hard',
    ...(reason ? { reasonCode: reason, reasonText: reason === 'abuse' ? 'Mailchimp cleaned the address after an abuse report' : `Mailchimp cleaned the address (${reason})` } : {}),
    at: new Date(base.occurredAt).toISOString(),
    ...(campaign ? { sendId: campaign } : { statusOnly: true }),
  };
  return { ...base, delivery };
}
