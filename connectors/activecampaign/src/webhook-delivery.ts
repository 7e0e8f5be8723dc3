import { createHash, timingSafeEqual } from 'node:crypto';
import { WebhookRejectedError, type ContactEvent, type RawWebhookRequest } from '@verify-hub/core';

/** Deliveries are small form posts: anything larger is refused before it is read. */
export const MAX_DELIVERY_BYTES = 64 * 1024;

const ROUTE = '/webhooks/activecampaign';

/**
 * Where ActiveCampaign posts a connection's contact changes. Its deliveries are unsigned, so the
 * address carries a secret of the connection's as a path segment: the only proof a delivery came from
 * the webhook the hub registered.
 */
export const webhookPath = (connectionId: string, secret: string) => `${ROUTE}/${connectionId}/${secret}`;

/** Whether a webhook's URL is the hub's address for this connection (whatever its host and secret). */
export const isHubWebhookFor = (connectionId: string, url: string) => url.includes(`${ROUTE}/${connectionId}/`);

/** Compared as hashes, so the time taken says nothing of the secret, its length included. */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The events the hub registers for: a contact subscribed to a list, a contact's details changed. */
const KINDS: Record<string, ContactEvent['kind']> = { subscribe: 'created', update: 'profile_updated' };

/**
 * One ActiveCampaign webhook delivery, parsed (pure): an `application/x-www-form-urlencoded` POST with
 * `type`, `date_time`, `initiated_from` and the contact as `contact[id]`, `contact[email]`, ... .
 *
 * - the path secret missing or wrong -> 401 (the same answer for an unknown connection);
 * - not a POST, not form-encoded, or a field missing -> 400 naming it; over 64 KiB -> 413;
 * - `subscribe` -> kind `created`, `update` -> `profile_updated`; other types -> [] (acknowledged);
 * - `initiated_from=api` -> [] (the hub registers without the `api` source: this is the second
 *   guard, so the hub's own writes never come back as work).
 */
export function parseDelivery(request: RawWebhookRequest, presented: string, expected: string, connectionId: string, now: number): ContactEvent[] {
  if (!expected || !sameSecret(presented, expected)) throw new WebhookRejectedError('webhook secret: does not match', 401);
  if (request.method.toUpperCase() !== 'POST') throw new WebhookRejectedError(`method: ${request.method} is not accepted (POST)`, 400);
  if (request.body.length > MAX_DELIVERY_BYTES) throw new WebhookRejectedError(`body: ${request.body.length} bytes is over the ${MAX_DELIVERY_BYTES}-byte limit`, 413);
  const contentType = request.headers['content-type'];
  if (contentType && !/^application\/x-www-form-urlencoded\b/i.test(contentType)) throw new WebhookRejectedError('content-type: must be application/x-www-form-urlencoded', 400);
  const form = new URLSearchParams(request.body.toString('utf8'));
  const type = form.get('type')?.trim();
  if (!type) throw new WebhookRejectedError('type: missing', 400);
  const kind = KINDS[type];
  if (!kind || form.get('initiated_from')?.trim() === 'api') return [];
  const contactId = form.get('contact[id]')?.trim();
  if (!contactId || !/^\d+$/.test(contactId)) throw new WebhookRejectedError('contact[id]: missing or not a contact id', 400);
  const email = form.get('contact[email]')?.trim();
  if (email && !/^[^@\s]+@[^@\s]+$/.test(email)) throw new WebhookRejectedError('contact[email]: not an email address', 400);
  const when = form.get('date_time')?.trim();
  const occurredAt = when ? Date.parse(when) : now;
  if (Number.isNaN(occurredAt)) throw new WebhookRejectedError('date_time: not a date and time', 400);
  return [
    {
      platform: 'activecampaign',
      kind,
      accountId: connectionId.replace(/^activecampaign-/, ''),
      contactId,
      ...(email ? { email } : {}),
      occurredAt,
      dedupeKey: `activecampaign:${connectionId}:${type}:${contactId}:${when ?? now}`,
    },
  ];
}
