import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WebhookRejectedError, type ContactEvent, type RawWebhookRequest } from '@verify-hub/core';

/**
 * HubSpot webhook deliveries, parsed purely: the v3 signature checked (nothing weaker), the
 * event array validated, contact creations and email changes kept, duplicates dropped and each
 * contact's latest event kept. Mounted by the hub service at POST /webhooks/hubspot.
 */

/** v3 deliveries older than this are replays (HubSpot's rule). */
export const SIGNATURE_MAX_AGE_MS = 5 * 60_000;
/**
 * HubSpot retries a delivery up to 10 times over 24 hours: an event that happened longer ago (with
 * an hour's margin for clocks) cannot be one of its deliveries, and is dropped unread.
 */
export const EVENT_MAX_AGE_MS = 25 * 3_600_000;
/** HubSpot sends at most 100 events a delivery. */
export const MAX_EVENTS = 100;
/** Far above 100 events; anything bigger is not HubSpot. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The characters HubSpot decodes in the URI before signing it (v3). */
const V3_DECODED: Record<string, string> = {
  '%3A': ':', '%2F': '/', '%3F': '?', '%40': '@', '%21': '!', '%24': '$', '%27': "'", '%28': '(', '%29': ')', '%2A': '*', '%2C': ',', '%3B': ';',
};

export function v3Uri(url: string): string {
  return url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (match) => V3_DECODED[match.toUpperCase()]!);
}

function sameSecret(expected: Buffer, given: string, encoding: 'base64' | 'hex'): boolean {
  const actual = Buffer.from(given.trim(), encoding);
  return actual.length === expected.length && actual.length > 0 && timingSafeEqual(actual, expected);
}

/**
 * HubSpot's v3 signature (HMAC-SHA256 of method, URI, body and timestamp with the app's client
 * secret, base64), refused when the timestamp is over 5 minutes away. Webhooks and workflow-action
 * calls are both signed this way. Throws `WebhookRejectedError` (401).
 */
export function verifyV3Signature(request: RawWebhookRequest, secret: string, now: number): void {
  const v3 = request.headers['x-hubspot-signature-v3'];
  if (!v3) throw new WebhookRejectedError('X-HubSpot-Signature-v3: missing (unsigned request)', 401);
  const method = request.method.toUpperCase();
  const timestamp = request.headers['x-hubspot-request-timestamp'];
  checkAge(timestamp, now);
  const expected = createHmac('sha256', secret).update(method + v3Uri(request.url), 'utf8').update(request.body).update(timestamp!, 'utf8').digest();
  if (!sameSecret(expected, v3, 'base64')) throw new WebhookRejectedError('X-HubSpot-Signature-v3: does not match', 401);
}

function checkAge(timestamp: string | undefined, now: number): void {
  const ts = Number(timestamp);
  if (!timestamp || !Number.isFinite(ts)) throw new WebhookRejectedError('X-HubSpot-Request-Timestamp: missing or not a number', 401);
  if (Math.abs(now - ts) > SIGNATURE_MAX_AGE_MS) throw new WebhookRejectedError('X-HubSpot-Request-Timestamp: older than 5 minutes (replayed or delayed delivery)', 401);
}

/**
 * A webhook delivery: HubSpot signs every one with v3, so nothing less is taken. A request without
 * `X-HubSpot-Signature-v3` is refused whatever v1/v2 signature it carries (they have no timestamp: a
 * recorded delivery, or one whose v3 headers were stripped, could be replayed for ever).
 */
export function verifyWebhookSignature(request: RawWebhookRequest, secret: string, now: number): void {
  if (!request.headers['x-hubspot-signature-v3']) {
    throw new WebhookRejectedError('X-HubSpot-Signature-v3: missing: HubSpot signs webhooks with v3; a v1 or v2 signature alone is refused', 401);
  }
  verifyV3Signature(request, secret, now);
}

/**
 * A workflow-action call: v3 whenever it is sent (and then only v3: a bad or stale v3 is refused
 * whatever else the request carries). Without v3, the v2 signature HubSpot's custom-action guide
 * documents for these calls (SHA-256 of secret + method + URI + body); v1 never. v2 has no timestamp:
 * a `X-HubSpot-Request-Timestamp` that comes with it must still be within 5 minutes, and a replayed
 * call is answered as the first one was (the hub keeps each callbackId).
 */
export function verifyActionSignature(request: RawWebhookRequest, secret: string, now: number): void {
  const h = request.headers;
  if (h['x-hubspot-signature-v3']) return verifyV3Signature(request, secret, now);
  const signature = h['x-hubspot-signature'];
  if (!signature) throw new WebhookRejectedError('X-HubSpot-Signature-v3: missing (unsigned request)', 401);
  const version = (h['x-hubspot-signature-version'] ?? '').toLowerCase();
  if (version !== 'v2') throw new WebhookRejectedError(`X-HubSpot-Signature-Version: ${version.slice(0, 10) || '(none)'} is refused: workflow-action calls are signed with v3 or v2`, 401);
  if (h['x-hubspot-request-timestamp'] !== undefined) checkAge(h['x-hubspot-request-timestamp'], now);
  const expected = createHash('sha256').update(secret, 'utf8').update(request.method.toUpperCase() + request.url, 'utf8').update(request.body).digest();
  if (!/^[0-9a-f]+$/i.test(signature.trim()) || !sameSecret(expected, signature, 'hex')) throw new WebhookRejectedError('X-HubSpot-Signature: does not match', 401);
}

const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String);
const EventSchema = z.looseObject({
  eventId: z.union([z.number(), z.string()]),
  portalId: id,
  objectId: id,
  occurredAt: z.number().int().nonnegative(),
  subscriptionType: z.string().min(1),
  objectTypeId: z.string().optional(),
  propertyName: z.string().optional(),
  propertyValue: z.string().nullable().optional(),
});
type HubSpotEvent = z.infer<typeof EventSchema>;

/** contact.creation, contact.propertyChange of email, contact.privacyDeletion (and the generic object.* forms for contacts, 0-1). */
function toContactEvent(e: HubSpotEvent): ContactEvent | undefined {
  const [object, action] = e.subscriptionType.split('.');
  const isContact = object === 'contact' || (object === 'object' && e.objectTypeId === '0-1');
  if (!isContact) return undefined;
  const base = { platform: 'hubspot', accountId: e.portalId, contactId: e.objectId, occurredAt: e.occurredAt, dedupeKey: `hubspot:${e.portalId}:${e.objectId}:${e.occurredAt}` };
  if (action === 'creation') return { ...base, kind: 'created' };
  // GDPR delete: the payload carries the contact id only; the hub finds the address from its own records.
  if (action === 'privacyDeletion') return { ...base, kind: 'privacy_deletion' };
  if (action === 'propertyChange' && e.propertyName === 'email') {
    const email = e.propertyValue?.trim();
    // An email cleared: nothing to verify.
    return email ? { ...base, kind: 'email_changed', email } : undefined;
  }
  return undefined;
}

/** HubSpot's event type id of an app uninstall (app lifecycle events). */
const APP_UNINSTALL_EVENT_TYPE = '4-1916193';
const LifecycleSchema = z.looseObject({ portalId: id, eventTypeId: z.string().optional(), action: z.string().optional(), subscriptionType: z.string().optional() });

/** The portal of an app-uninstall lifecycle event (the published event: eventTypeId 4-1916193, or action APP_UNINSTALL), else undefined. */
function uninstalledPortal(raw: unknown): string | undefined {
  const e = LifecycleSchema.safeParse(raw);
  if (!e.success) return undefined;
  return e.data.eventTypeId === APP_UNINSTALL_EVENT_TYPE || e.data.action === 'APP_UNINSTALL' ? e.data.portalId : undefined;
}

/** A delivery's contact events, and the portals it says the app was uninstalled from. */
export interface HubSpotDelivery {
  events: ContactEvent[];
  uninstalledPortals: string[];
}

/**
 * Checks the signature with the app's client secret, then returns the contact events of the delivery:
 * one per contact (its latest by occurredAt; an event carrying the email wins a tie), duplicates and
 * events older than HubSpot's 24-hour retry window (`EVENT_MAX_AGE_MS`) dropped, oldest first. Throws `WebhookRejectedError`: 401 unsigned, badly signed or stale; 400 not
 * a HubSpot event array; 413 more than 100 events.
 */
export function parse(request: RawWebhookRequest, secret: string, now: number = Date.now()): ContactEvent[] {
  return parseDelivery(request, secret, now).events;
}

/** `parse`, with the app-uninstall lifecycle events of the delivery as well (not contact events: they carry no object). */
export function parseDelivery(request: RawWebhookRequest, secret: string, now: number = Date.now()): HubSpotDelivery {
  if (!secret) throw new WebhookRejectedError('HubSpot webhook secret (HUBSPOT_CLIENT_SECRET) is not configured', 401);
  if (request.body.length > MAX_BODY_BYTES) throw new WebhookRejectedError(`body: over ${MAX_BODY_BYTES} bytes`, 413);
  verifyWebhookSignature(request, secret, now);
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw new WebhookRejectedError('body: not JSON', 400);
  }
  if (!Array.isArray(json)) throw new WebhookRejectedError('body: must be a JSON array of events', 400);
  if (json.length > MAX_EVENTS) throw new WebhookRejectedError(`body: ${json.length} events, at most ${MAX_EVENTS} allowed`, 413);
  const latest = new Map<string, ContactEvent>();
  const uninstalledPortals = new Set<string>();
  json.forEach((raw, index) => {
    const uninstalled = uninstalledPortal(raw);
    if (uninstalled) return void uninstalledPortals.add(uninstalled);
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new WebhookRejectedError(`body[${index}].${issue.path.join('.') || 'event'}: ${issue.message}`, 400);
    }
    if (now - parsed.data.occurredAt > EVENT_MAX_AGE_MS) return;
    const event = toContactEvent(parsed.data);
    if (!event) return;
    const key = `${event.accountId}:${event.contactId}`;
    const seen = latest.get(key);
    // A privacy deletion is never replaced by another event of the same contact: the erasure must happen.
    if (seen?.kind === 'privacy_deletion') return;
    if (!seen || event.kind === 'privacy_deletion' || event.occurredAt > seen.occurredAt || (event.occurredAt === seen.occurredAt && !seen.email && event.email)) latest.set(key, event);
  });
  return { events: [...latest.values()].sort((a, b) => a.occurredAt - b.occurredAt), uninstalledPortals: [...uninstalledPortals] };
}
