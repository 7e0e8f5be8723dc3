import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WebhookRejectedError, type ConnectionStore, type ContactEvent, type WebhookReceiver } from '@verify-hub/core';
import { ATTRIBUTE_NAMES } from './mapping';

/** A new delivery token: the URL's last segment and Brevo's bearer token. */
export const newWebhookToken = () => randomBytes(24).toString('base64url');

/** Where a connection's webhook posts on the hub: `/webhooks/brevo/<connection>/<token>`. */
export const webhookPath = (connectionId: string, token: string) => `/webhooks/brevo/${encodeURIComponent(connectionId)}/${token}`;

/** Whether a registered webhook's URL is this connection's receiver on some hub (any host, any token). */
export function isHubWebhookFor(connectionId: string, url: string): boolean {
  try {
    return new URL(url).pathname.includes(`/webhooks/brevo/${encodeURIComponent(connectionId)}/`);
  } catch {
    return false;
  }
}

/** One marketing event as Brevo posts it (`contact_updated`, `list_addition`); unknown fields are kept. */
const MarketingEvent = z.looseObject({
  event: z.string().min(1),
  email: z.union([z.string(), z.array(z.string())]).optional(),
  date: z.string().optional(),
  ts: z.number().optional(),
  list_id: z.union([z.number(), z.array(z.number())]).optional(),
  content: z.unknown().optional(),
  /** The name of the API key that made the change; empty when it was not made through the API. */
  api_key_name: z.string().optional(),
});
type MarketingEvent = z.infer<typeof MarketingEvent>;

/** What the receiver needs of a connection: its token, its API key's name and its dedicated list. */
export interface ReceiverConnection {
  token: string;
  apiKeyName?: string;
  listId?: number;
}

/** Constant-time comparison of two secrets of any length (both hashed to the same length first). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return expected !== '' && timingSafeEqual(digest(given), digest(expected));
}

const asList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The attribute names a `contact_updated` event says changed (its `content`), upper-cased. */
function changedAttributes(content: unknown): string[] {
  return asList(content as unknown[]).flatMap((part) => (part && typeof part === 'object' ? Object.keys(part).map((k) => k.toUpperCase()) : []));
}

/**
 * The hub's own writes coming back: made with our API key (its name in `api_key_name`), an addition to
 * our dedicated list (imports add to it), or an update touching only our attributes.
 */
function isEcho(event: MarketingEvent, connection: ReceiverConnection): boolean {
  if (connection.apiKeyName && event.api_key_name === connection.apiKeyName) return true;
  if (event.event === 'list_addition' && connection.listId !== undefined) {
    const lists = asList(event.list_id);
    if (lists.length > 0 && lists.every((id) => id === connection.listId)) return true;
  }
  const changed = changedAttributes(event.content);
  return event.event === 'contact_updated' && changed.length > 0 && changed.every((name) => ATTRIBUTE_NAMES.includes(name));
}

/** A contact deleted in Brevo is forgotten by the hub too (cache, run reports, queued work), as a privacy deletion. */
const KINDS: Record<string, ContactEvent['kind']> = { contact_updated: 'profile_updated', list_addition: 'created', contact_deleted: 'privacy_deletion' };

/**
 * POST /webhooks/brevo/:connection/:token: Brevo's marketing webhooks carry no signature, so the
 * connection's token is checked twice, in constant time: in the URL and as the bearer token Brevo
 * sends (registered with the webhook). An unknown connection gets the same 401 as a wrong token.
 */
export function brevoReceiver(connectionFor: (connectionId: string) => Promise<ReceiverConnection | undefined>): WebhookReceiver {
  return {
    async receive(request, route, now) {
      const connection = route.connection ? await connectionFor(route.connection) : undefined;
      const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
      const urlOk = sameSecret(route.secret ?? '', connection?.token ?? '');
      const headerOk = sameSecret(bearer, connection?.token ?? '');
      if (!connection || !urlOk || !headerOk) throw new WebhookRejectedError('authorization: the delivery token does not match', 401);
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8'));
      } catch {
        throw new WebhookRejectedError('body: must be JSON', 400);
      }
      // An array is a batched delivery; parsed apart so an error names the event's field, not the union.
      const parsed = (Array.isArray(body) ? z.array(MarketingEvent) : MarketingEvent).safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new WebhookRejectedError(`${['body', ...issue.path].join('.')}: ${issue.message}`, 400);
      }
      const events: ContactEvent[] = [];
      for (const event of asList(parsed.data)) {
        const kind = KINDS[event.event];
        if (!kind || isEcho(event, connection)) continue;
        const occurredAt = event.ts !== undefined ? event.ts * 1000 : event.date && !Number.isNaN(Date.parse(event.date)) ? Date.parse(event.date) : now;
        for (const email of asList(event.email)) {
          if (!email.includes('@')) continue;
          events.push({ platform: 'brevo', kind, accountId: route.connection!, contactId: email, email, occurredAt, dedupeKey: `${event.event}:${email.toLowerCase()}:${event.ts ?? event.date ?? now}` });
        }
      }
      return events;
    },
    connectionIdFor: (event, route) => route.connection ?? event.accountId,
  };
}

/** The receiver's view of the stored connections (sealed with HUB_SECRET_KEY). */
export function storedReceiverConnections(connections: ConnectionStore | undefined) {
  return async (connectionId: string): Promise<ReceiverConnection | undefined> => {
    const record = await connections?.get(connectionId);
    if (!record || record.platform !== 'brevo') return undefined;
    const token = record.credentials.webhookToken;
    if (typeof token !== 'string' || !token) return undefined;
    const apiKeyName = record.credentials.apiKeyName;
    const listId = record.settings?.listId;
    return { token, ...(typeof apiKeyName === 'string' && apiKeyName ? { apiKeyName } : {}), ...(typeof listId === 'number' ? { listId } : {}) };
  };
}
