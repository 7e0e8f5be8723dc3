import { notFound, ok, refused, type FakeAnswer } from './fake-answer';
import { accountTime, type FakeContact, type FakeStore } from './fake-store';

export const WEBHOOK_SOURCES = ['public', 'admin', 'api', 'system'] as const;
export type WebhookSource = (typeof WEBHOOK_SOURCES)[number];
const KNOWN_EVENTS = new Set(['subscribe', 'unsubscribe', 'update', 'sent', 'open', 'click', 'bounce', 'contact_tag_added', 'contact_tag_removed', 'subscriber_note']);

export interface FakeWebhook {
  id: string;
  name: string;
  url: string;
  events: string[];
  sources: string[];
  listid: string;
  cdate: string;
}

export interface Delivery {
  url: string;
  type: string;
  source: WebhookSource;
  contactId: string;
  /** The hub's answer (0: not reached). Never retried, whatever it is. */
  status: number;
}

/**
 * Webhooks (`GET|POST /webhooks`, `DELETE /webhooks/<id>`: name, url, events and sources required,
 * sources among public, admin, api, system) and their deliveries as ActiveCampaign sends them:
 * `application/x-www-form-urlencoded` POSTs with `type`, `date_time`, `initiated_from`, `initiated_by`,
 * `list` and the contact as `contact[id]`, `contact[email]`, `contact[tags]` (comma-separated) and
 * `contact[fields][<perstag>]`, unsigned, sent once (never retried), only to webhooks whose events and
 * sources ask for that change.
 */
export class FakeWebhooks {
  readonly hooks = new Map<string, FakeWebhook>();
  readonly deliveries: Delivery[] = [];
  private seq = 0;

  constructor(private readonly store: FakeStore) {}

  route(method: string, path: string, body: Record<string, unknown>): FakeAnswer | undefined {
    if (method === 'GET' && path === '/webhooks') return ok({ webhooks: [...this.hooks.values()], meta: { total: String(this.hooks.size) } });
    if (method === 'POST' && path === '/webhooks') {
      const hook = (body.webhook ?? {}) as Record<string, unknown>;
      for (const field of ['name', 'url']) if (typeof hook[field] !== 'string' || !hook[field]) return refused(422, `${field} is required`, 'field_missing');
      if (!Array.isArray(hook.events) || !hook.events.length || hook.events.some((e) => !KNOWN_EVENTS.has(String(e)))) return refused(422, 'events must list known webhook events', 'invalid');
      if (!Array.isArray(hook.sources) || !hook.sources.length || hook.sources.some((s) => !(WEBHOOK_SOURCES as readonly string[]).includes(String(s)))) {
        return refused(422, 'sources must be among public, admin, api, system', 'invalid');
      }
      const created: FakeWebhook = {
        id: String(++this.seq),
        name: String(hook.name),
        url: String(hook.url),
        events: hook.events.map(String),
        sources: hook.sources.map(String),
        listid: String(hook.listid ?? '0'),
        cdate: accountTime(Date.now()),
      };
      this.hooks.set(created.id, created);
      return ok({ webhook: created }, 201);
    }
    const one = /^\/webhooks\/([^/]+)$/.exec(path);
    if (method === 'DELETE' && one) return this.hooks.delete(one[1]!) ? ok({}) : notFound('Webhook');
    return undefined;
  }

  /** The form ActiveCampaign posts for a contact event. */
  form(type: string, contact: FakeContact, source: WebhookSource): URLSearchParams {
    const form = new URLSearchParams({
      type,
      date_time: accountTime(Date.now()),
      initiated_from: source,
      initiated_by: source === 'admin' ? 'admin' : source,
      list: [...contact.lists.keys()][0] ?? '0',
      'contact[id]': contact.id,
      'contact[email]': contact.email,
      'contact[first_name]': '',
      'contact[last_name]': '',
      'contact[phone]': '',
      'contact[ip]': '127.0.0.1',
      'contact[tags]': this.store.tagsOf(contact.id).join(', '),
      'contact[orgname]': '',
    });
    for (const [fieldId, value] of contact.fields) form.append(`contact[fields][${this.store.fields.get(fieldId)?.perstag.toLowerCase() ?? fieldId}]`, value);
    return form;
  }

  /** Posts a contact event to every webhook that asks for it, once; what each answered is kept. */
  async deliver(type: 'subscribe' | 'update' | 'unsubscribe', contact: FakeContact, source: WebhookSource): Promise<Delivery[]> {
    const hooks = [...this.hooks.values()].filter((h) => h.events.includes(type) && h.sources.includes(source));
    return Promise.all(
      hooks.map(async (hook) => {
        let status = 0;
        try {
          const res = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: this.form(type, contact, source).toString() });
          status = res.status;
          await res.arrayBuffer();
        } catch {
          status = 0;
        }
        const delivery = { url: hook.url, type, source, contactId: contact.id, status };
        this.deliveries.push(delivery);
        return delivery;
      }),
    );
  }
}
