import { createHmac, randomBytes } from 'node:crypto';

/**
 * Audience webhooks of the fake Mailchimp: registration validated as Mailchimp's API definition has
 * it (`AddWebhook`: `url`, `events`, `sources`, nothing else; an http(s) `url` that answers a GET with
 * 200, `events` and `sources` of known names), a signing secret in the create answer only, and
 * deliveries as Mailchimp sends them: form-urlencoded `type=...&fired_at=...&data[...]=...` POSTs,
 * only to webhooks whose `events` and `sources` ask for that change, signed
 * (`X-Mailchimp-Signature: t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) when the webhook was
 * created through the API. A webhook pasted in by hand (`addWebhook`) stands for one made before
 * signing: unsigned.
 */

export const WEBHOOK_EVENTS = ['subscribe', 'unsubscribe', 'profile', 'cleaned', 'upemail', 'campaign'] as const;
export const WEBHOOK_SOURCES = ['user', 'admin', 'api'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export type ChangeSource = (typeof WEBHOOK_SOURCES)[number];

export interface FakeWebhook {
  id: string;
  url: string;
  list_id: string;
  events: Record<WebhookEvent, boolean>;
  sources: Record<ChangeSource, boolean>;
  signing_enabled: boolean;
}

/** The webhook as Mailchimp lists it: never with its signing secret. */
export type StoredWebhook = FakeWebhook & { signingSecret?: string };
export const listed = ({ signingSecret: _secret, ...hook }: StoredWebhook): FakeWebhook => hook;

export interface Delivery {
  url: string;
  type: WebhookEvent;
  source: ChangeSource;
  email: string;
  /** The HTTP status the hub answered (0: not reachable). */
  status: number;
}

interface Problem {
  status: number;
  body: Record<string, unknown>;
}

function invalid(field: string, message: string): Problem {
  return {
    status: 400,
    body: {
      type: 'https://mailchimp.com/developer/marketing/docs/errors/',
      title: 'Invalid Resource',
      status: 400,
      detail: `The resource submitted could not be validated. ${field}: ${message}`,
      instance: randomBytes(8).toString('hex'),
      errors: [{ field, message }],
    },
  };
}

/** Every flag defaults to what the Mailchimp app ticks for a new webhook: all events and sources on. */
function flags<K extends string>(names: readonly K[], given: unknown, field: string): Record<K, boolean> | Problem {
  if (given !== undefined && (typeof given !== 'object' || given === null || Array.isArray(given))) return invalid(field, 'must be an object');
  const out = {} as Record<K, boolean>;
  for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
    if (!names.includes(name as K)) return invalid(`${field}.${name}`, `is not one of ${names.join(', ')}`);
    if (typeof value !== 'boolean') return invalid(`${field}.${name}`, 'must be true or false');
  }
  for (const name of names) out[name] = ((given ?? {}) as Record<string, boolean>)[name] ?? true;
  return out;
}
const isProblem = (value: unknown): value is Problem => typeof value === 'object' && value !== null && 'status' in value && 'body' in value;

/**
 * The body of POST /lists/{id}/webhooks checked as Mailchimp does, including its GET of the URL (a
 * hub it cannot reach is refused): a webhook to store, or the 400 problem naming the field.
 */
export async function webhookFromBody(listId: string, body: unknown, id: string): Promise<StoredWebhook | Problem> {
  const b = (body ?? {}) as { url?: unknown; events?: unknown; sources?: unknown };
  const unknown = Object.keys(b).find((name) => !['url', 'events', 'sources'].includes(name));
  if (unknown) return invalid(unknown, 'is not a field of a webhook (url, events, sources)');
  if (typeof b.url !== 'string' || !b.url) return invalid('url', 'is required');
  let parsed: URL;
  try {
    parsed = new URL(b.url);
  } catch {
    return invalid('url', 'must be a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return invalid('url', 'must be an http or https URL');
  const events = flags(WEBHOOK_EVENTS, b.events, 'events');
  if (isProblem(events)) return events;
  const sources = flags(WEBHOOK_SOURCES, b.sources, 'sources');
  if (isProblem(sources)) return sources;
  const answered = await fetch(b.url, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, () => 0);
  if (answered !== 200) return invalid('url', `We couldn't verify the URL is working (a GET answered ${answered || 'nothing'}): it must be reachable from Mailchimp`);
  return { id, url: b.url, list_id: listId, events, sources, signing_enabled: true, signingSecret: randomBytes(24).toString('hex') };
}

const firedAt = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** One change as Mailchimp's form body: `type`, `fired_at`, `data[...]`, merges as `data[merges][TAG]`. */
export function deliveryForm(type: WebhookEvent, listId: string, email: string, merges: Record<string, string | number>, extra: Record<string, string>, now: number): string {
  const form = new URLSearchParams({ type, fired_at: firedAt(now), 'data[id]': randomBytes(5).toString('hex'), 'data[list_id]': listId, 'data[email]': email, 'data[email_type]': 'html' });
  for (const [tag, value] of Object.entries(merges)) form.set(`data[merges][${tag}]`, String(value));
  for (const [name, value] of Object.entries(extra)) form.set(`data[${name}]`, value);
  return form.toString();
}

/** Mailchimp's signature header for a body, written out here from Mailchimp's documentation (not the connector's code). */
export function signatureFor(signingSecret: string, body: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${createHmac('sha256', signingSecret).update(`${t}.${body}`).digest('hex')}`;
}

/** Posts one delivery to a webhook (Mailchimp waits up to 10 s), signed when the webhook has a secret; answers the status, 0 when unreachable. */
export async function post(hook: StoredWebhook, form: string, nowMs: number, closing: AbortSignal): Promise<number> {
  const signal = AbortSignal.any([AbortSignal.timeout(10_000), closing]);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (hook.signingSecret) headers['x-mailchimp-signature'] = signatureFor(hook.signingSecret, form, nowMs);
  return fetch(hook.url, { method: 'POST', headers, body: form, signal }).then(
    (r) => r.status,
    () => 0,
  );
}
