import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLimits, OVER_LIMIT_BODY } from './fake-limits';
import { deliver, matches, webhookProblem, type Delivery, type FakeWebhook } from './fake-webhooks';
import { FakeOAuth } from './fake-oauth';
import { FAKE_KEEP_ALIVE_MS } from '../keep-alive';

/**
 * A fake of Pipedrive's API on loopback, as its docs describe it: `x-api-token` or an OAuth bearer
 * token (401 otherwise); `/api/v1/users/me`; persons in API v2 (cursor paging, `limit` at most 500 and
 * 400 above, `filter_id`, `updated_since`, `ids`, `custom_fields`), one PATCH a person; person fields
 * with generated 40-character keys; the burst and daily limits with their headers (fake-limits.ts);
 * webhooks v2 with basic auth (fake-webhooks.ts). It records every call, every write per person, and
 * any attempt to send `marketing_status` (which must never happen).
 */
export interface FakeEmail {
  value: string;
  primary: boolean;
  label: string;
}
export interface FakePerson {
  id: number;
  name: string;
  emails: FakeEmail[];
  custom_fields: Record<string, unknown>;
  update_time: string;
  add_time: string;
  marketing_status: string;
}
export interface FakeField {
  field_name: string;
  field_code: string;
  field_type: string;
  is_custom_field: boolean;
  options: { id: number; label: string }[] | null;
}

const iso = (ms = Date.now()) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const fieldCode = () => randomBytes(20).toString('hex');

export class FakePipedrive {
  apiToken = `pd-${randomBytes(12).toString('hex')}`;
  readonly companyId = 7012345;
  readonly companyDomain = 'acme';
  readonly userId = 9001;
  readonly persons = new Map<number, FakePerson>();
  readonly fields: FakeField[] = [
    { field_name: 'Name', field_code: 'name', field_type: 'varchar', is_custom_field: false, options: null },
    { field_name: 'Email', field_code: 'emails', field_type: 'varchar', is_custom_field: false, options: null },
  ];
  /** Saved filters: id -> which persons they hold. */
  readonly filters = new Map<number, (p: FakePerson) => boolean>();
  readonly webhooks: FakeWebhook[] = [];
  readonly deliveries: Delivery[] = [];
  /** Every call, with `refused` set on those answered 429 (the rate limit). */
  readonly calls: { method: string; path: string; query: string; auth?: 'api_token' | 'oauth'; refused?: boolean }[] = [];
  readonly writesPerPerson = new Map<number, number>();
  /** Every attempt to change consent: `marketing_status` in a write body. Must stay empty. */
  readonly marketingStatusWrites: { personId: number; value: unknown }[] = [];
  readonly limits: FakeLimits;
  readonly oauth = new FakeOAuth();
  url = '';
  private server?: Server;
  private nextId = 1;
  private nextWebhookId = 100;
  private nextOptionId = 1;
  private failing: number[] = [];
  private pendingDeliveries = new Set<Promise<void>>();

  /**
   * Pipedrive delivers a change webhook for every API write, ours included: on unless a suite turns it
   * off to spare the machine tens of thousands of deliveries it has already proved it ignores.
   */
  readonly deliverOwnChanges: boolean;

  constructor(options: { burstLimit?: number; dailyBudget?: number; deliverOwnChanges?: boolean } = {}) {
    this.limits = new FakeLimits(options.burstLimit ?? 20, options.dailyBudget ?? 1_000_000);
    this.deliverOwnChanges = options.deliverOwnChanges ?? true;
  }

  addPerson(emails: string[], options: { source?: 'app' | 'api'; deliver?: boolean } = {}): FakePerson {
    const now = iso();
    const person: FakePerson = { id: this.nextId++, name: `Person ${this.nextId}`, emails: emails.map((value, i) => ({ value, primary: i === 0, label: 'work' })), custom_fields: {}, update_time: now, add_time: now, marketing_status: 'subscribed' };
    this.persons.set(person.id, person);
    if (options.deliver !== false) this.emit('create', person, null, options.source ?? 'app');
    return person;
  }

  /** Many persons at once, no webhooks (a company's existing data). */
  seed(count: number, emailOf: (i: number) => string[]): void {
    for (let i = 0; i < count; i++) this.addPerson(emailOf(i), { deliver: false });
  }

  /** A user edits a person's primary address in the web app: a change delivery with `previous.emails`. */
  changeEmail(id: number, value: string): void {
    const person = this.persons.get(id)!;
    const previous = { emails: person.emails.map((e) => ({ ...e })) };
    person.emails = [{ value, primary: true, label: 'work' }, ...person.emails.filter((e) => !e.primary)];
    person.update_time = iso();
    this.emit('change', person, previous, 'app');
  }

  /** The token is revoked: every call with it is refused (401). */
  revokeToken(): void {
    this.apiToken = `pd-${randomBytes(12).toString('hex')}`;
    this.oauth.revokeAll();
  }

  /** The next calls answer `status` (503: Pipedrive busy), nothing applied. */
  failNext(...statuses: number[]): void {
    this.failing.push(...statuses);
  }

  callsTo(method: string, pathPrefix: string, queryHas?: string): number {
    return this.calls.filter((c) => c.method === method && c.path.startsWith(pathPrefix) && (queryHas === undefined || c.query.includes(queryHas))).length;
  }

  /** Pages of persons read and answered of `GET /v2/persons`, not reads by `ids` (a read refused with 429 is made again, and is not a page read). */
  pageReads(): number {
    return this.calls.filter((c) => c.method === 'GET' && c.path === '/api/v2/persons' && !c.query.includes('ids=') && !c.refused).length;
  }

  field(name: string): FakeField | undefined {
    return this.fields.find((f) => f.field_name === name);
  }

  /** Deliveries still on their way to the hub. */
  async settled(): Promise<void> {
    while (this.pendingDeliveries.size) await Promise.all([...this.pendingDeliveries]);
  }

  async start(): Promise<this> {
    this.server = createServer({ keepAliveTimeout: FAKE_KEEP_ALIVE_MS }, (req, res) => void this.handle(req, res).catch((error: Error) => this.send(res, 500, { success: false, error: error.message })));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.oauth.apiDomain = this.url;
    return this;
  }

  async stop(): Promise<void> {
    await this.settled();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** A delivery as webhooks v2 sends it, to every webhook that asks for it. */
  emit(action: 'create' | 'change', person: FakePerson, previous: Record<string, unknown> | null, source: 'api' | 'app'): void {
    for (const hook of this.webhooks.filter((h) => matches(h, action, 'person'))) {
      const timestamp = Math.floor(Date.now() / 1000);
      const payload = {
        meta: { action, entity: 'person', entity_id: String(person.id), id: String(person.id), company_id: String(this.companyId), user_id: String(this.userId), version: '2.0', webhook_id: String(hook.id), webhook_owner_id: String(hook.user_id), timestamp, change_source: source, host: `${this.companyDomain}.pipedrive.com`, attempt: 1, permitted_user_ids: [String(this.userId)], is_bulk_edit: false },
        data: this.personJson(person),
        previous,
      };
      const sent = deliver(hook, payload).then((status) => void this.deliveries.push({ webhookId: hook.id, action, personId: person.id, changeSource: source, status }));
      this.pendingDeliveries.add(sent);
      void sent.finally(() => this.pendingDeliveries.delete(sent));
    }
  }

  private personJson(person: FakePerson, customFields?: string[]): Record<string, unknown> {
    const { marketing_status: _consent, ...rest } = person;
    const custom = customFields ? Object.fromEntries(customFields.map((k) => [k, person.custom_fields[k] ?? null])) : { ...person.custom_fields };
    return { ...rest, emails: person.emails.map((e) => ({ ...e })), custom_fields: custom };
  }

  private send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    if (res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private tokenOf(req: IncomingMessage): string | undefined {
    const apiToken = req.headers['x-api-token'];
    if (apiToken === this.apiToken) return apiToken;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    return bearer && this.oauth.validAccessToken(bearer) ? bearer : undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    if (url.pathname.startsWith('/oauth/')) return this.oauth.handle(req, url, raw, (status, body) => this.send(res, status, body));
    const token = this.tokenOf(req);
    const call = { method: req.method ?? 'GET', path: url.pathname, query: url.search, ...(token ? { auth: token === this.apiToken ? ('api_token' as const) : ('oauth' as const) } : {}) };
    this.calls.push(call);
    if (!token) return this.send(res, 401, { success: false, error: 'unauthorized access', errorCode: 401, error_info: 'Please check developers.pipedrive.com' });
    const limit = this.limits.take(token);
    if (limit.over) {
      Object.assign(call, { refused: true });
      return this.send(res, 429, OVER_LIMIT_BODY, limit.headers);
    }
    const fail = this.failing.shift();
    if (fail) return this.send(res, fail, { success: false, error: 'Service unavailable', errorCode: fail }, limit.headers);
    let body: Record<string, unknown> = {};
    if (raw) {
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return this.send(res, 400, { success: false, error: 'Invalid JSON' }, limit.headers);
      }
    }
    const answer = this.route(req.method ?? 'GET', url, body);
    this.send(res, answer.status, answer.body, limit.headers);
  }

  private route(method: string, url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    const path = url.pathname;
    const ok = (data: unknown, additional?: unknown) => ({ status: 200, body: { success: true, data, ...(additional ? { additional_data: additional } : {}) } });
    const bad = (status: number, error: string) => ({ status, body: { success: false, error, errorCode: status } });
    if (method === 'GET' && path === '/api/v1/users/me') return ok({ id: this.userId, company_id: this.companyId, company_domain: this.companyDomain, company_name: 'Acme Ltd' });
    if (method === 'GET' && path === '/api/v2/persons') {
      const limit = Number(url.searchParams.get('limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) return bad(400, 'Validation failed: limit: Number must be less than or equal to 500');
      let all = [...this.persons.values()];
      const ids = url.searchParams.get('ids');
      if (ids) {
        const wanted = ids.split(',');
        if (wanted.length > 100) return bad(400, 'Validation failed: ids: at most 100');
        all = wanted.map((id) => this.persons.get(Number(id))).filter((p): p is FakePerson => Boolean(p));
      }
      const filterId = url.searchParams.get('filter_id');
      if (filterId) {
        const filter = this.filters.get(Number(filterId));
        if (!filter) return bad(404, 'Filter not found');
        all = all.filter(filter);
      }
      const since = url.searchParams.get('updated_since');
      if (since) all = all.filter((p) => Date.parse(p.update_time) >= Date.parse(since));
      const cursor = url.searchParams.get('cursor');
      const after = cursor ? Number(Buffer.from(cursor, 'base64url').toString('utf8').replace(/^id:/, '')) : 0;
      const page = all.filter((p) => p.id > after).slice(0, limit);
      const more = all.some((p) => p.id > (page.at(-1)?.id ?? Infinity));
      const customFields = url.searchParams.get('custom_fields')?.split(',');
      if (customFields && customFields.length > 15) return bad(400, 'Validation failed: custom_fields: at most 15 keys');
      return ok(page.map((p) => this.personJson(p, customFields)), { next_cursor: more ? Buffer.from(`id:${page.at(-1)!.id}`).toString('base64url') : null });
    }
    const patch = /^\/api\/v2\/persons\/(\d+)$/.exec(path);
    if (method === 'PATCH' && patch) {
      const person = this.persons.get(Number(patch[1]));
      if ('marketing_status' in body) this.marketingStatusWrites.push({ personId: Number(patch[1]), value: body.marketing_status });
      if (!person) return bad(404, 'Person not found');
      const previous: Record<string, unknown> = {};
      for (const [key, value] of Object.entries((body.custom_fields ?? {}) as Record<string, unknown>)) {
        const field = this.fields.find((f) => f.field_code === key);
        if (!field) return bad(400, `Unknown custom field ${key}`);
        if (field.field_type === 'enum' && value !== null && !field.options?.some((o) => o.id === value)) return bad(400, `Invalid option for ${field.field_name}`);
        if (field.field_type === 'double' && value !== null && typeof value !== 'number') return bad(400, `${field.field_name} must be a number`);
        if (field.field_type === 'date' && value !== null && !/^\d{4}-\d{2}-\d{2}$/.test(String(value))) return bad(400, `${field.field_name} must be YYYY-MM-DD`);
        previous[key] = person.custom_fields[key] ?? null;
        person.custom_fields[key] = value;
      }
      if ('marketing_status' in body) person.marketing_status = String(body.marketing_status);
      person.update_time = iso();
      this.writesPerPerson.set(person.id, (this.writesPerPerson.get(person.id) ?? 0) + 1);
      if (this.deliverOwnChanges) this.emit('change', person, { custom_fields: previous }, 'api');
      return ok(this.personJson(person));
    }
    if (method === 'GET' && path === '/api/v2/personFields') return ok(this.fields.map((f) => ({ ...f, is_optional_response_field: false })), { next_cursor: null });
    if (method === 'POST' && path === '/api/v2/personFields') {
      const type = String(body.field_type);
      if (typeof body.field_name !== 'string' || !body.field_name) return bad(400, 'field_name is required');
      const options = type === 'enum' || type === 'set' ? ((body.options ?? []) as { label: string }[]).map((o) => ({ id: this.nextOptionId++, label: o.label })) : null;
      const field: FakeField = { field_name: body.field_name, field_code: fieldCode(), field_type: type, is_custom_field: true, options };
      this.fields.push(field);
      return ok(field);
    }
    const options = /^\/api\/v2\/personFields\/([0-9a-f]{40})\/options$/.exec(path);
    if (method === 'POST' && options) {
      const field = this.fields.find((f) => f.field_code === options[1]);
      if (!field?.options) return bad(404, 'Field not found');
      for (const o of body as unknown as { label: string }[]) field.options.push({ id: this.nextOptionId++, label: o.label });
      return ok(field.options);
    }
    if (method === 'POST' && path === '/api/v1/webhooks') {
      const problem = webhookProblem(body, this.webhooks.length);
      if (problem) return bad(400, problem);
      const hook: FakeWebhook = { id: this.nextWebhookId++, user_id: Number(body.user_id ?? this.userId), subscription_url: String(body.subscription_url), event_action: String(body.event_action), event_object: String(body.event_object), http_auth_user: (body.http_auth_user as string) ?? null, http_auth_password: (body.http_auth_password as string) ?? null, version: String(body.version ?? '2.0'), name: String(body.name) };
      this.webhooks.push(hook);
      return { status: 201, body: { success: true, data: { ...hook, http_auth_password: hook.http_auth_password ? '***' : null } } };
    }
    if (method === 'GET' && path === '/api/v1/webhooks') return ok(this.webhooks.filter((h) => h.user_id === this.userId).map((h) => ({ ...h, http_auth_password: h.http_auth_password ? '***' : null })));
    const hookId = /^\/api\/v1\/webhooks\/(\d+)$/.exec(path);
    if (method === 'DELETE' && hookId) {
      const at = this.webhooks.findIndex((h) => h.id === Number(hookId[1]));
      if (at < 0) return bad(404, 'Webhook not found');
      this.webhooks.splice(at, 1);
      return ok({ id: Number(hookId[1]) });
    }
    return bad(404, `Unknown method ${method} ${path}`);
  }
}
