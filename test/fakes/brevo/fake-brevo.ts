import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Brevo } from '@getbrevo/brevo';
import { FakeBrevoLimits, type Bucket } from './fake-brevo-limits';
import { FAKE_KEEP_ALIVE_MS } from '../keep-alive';

/**
 * A fake of Brevo's API v3 on loopback, as Brevo documents it: the `api-key` header (401 when wrong),
 * `GET /contacts` paged by `limit` (at most 1000) and `offset`, with `modifiedSince`, `listIds`,
 * `segmentId`, `ids`; normal attributes (an unknown attribute is silently ignored by an import, as
 * Brevo does); `POST /contacts/import`, which needs `listIds` (or `newList`), answers a `processId`
 * and applies its rows later, reporting no per-row outcome (`dropNextImportRows` makes rows silently
 * not applied); `GET /processes/{id}`; lists, folders; marketing webhooks and their deliveries; the
 * `x-sib-ratelimit-*` headers on every answer and 429s with Brevo's body when a budget is used up
 * (contacts endpoints 10/s and 36,000/h, every other endpoint 100/h). It records every call, every
 * write per contact, and every change of consent or list membership (blocklist, list added or removed).
 * Its answers are typed with the official SDK's response types (generated from Brevo's OpenAPI
 * description), so `npm run typecheck` holds them to Brevo's documented shapes.
 */
export interface FakeBrevoContact {
  id: number;
  email: string;
  attributes: Record<string, string | number | boolean>;
  emailBlacklisted: boolean;
  smsBlacklisted: boolean;
  whatsappBlacklisted: boolean;
  listIds: number[];
  createdAt: string;
  modifiedAt: string;
}

export interface ConsentChange {
  contactId: number;
  what: 'emailBlacklisted' | 'list-added' | 'list-removed';
  value: boolean | number;
  via: string;
}

interface Process {
  id: number;
  status: 'queued' | 'in_process' | 'completed';
  rows: { email: string; attributes: Record<string, unknown> }[];
  listIds: number[];
  emailBlacklist: boolean;
  dueAt: number;
}

export interface Webhook {
  id: number;
  url: string;
  type: string;
  events: string[];
  description: string;
  auth?: { type?: string; token?: string };
}

type Answer = { status: number; body?: unknown };

export class FakeBrevo {
  apiKey = `xkeysib-${randomBytes(16).toString('hex')}`;
  /** The name the key has in Brevo: webhook events the key caused carry it as `api_key_name`. */
  readonly apiKeyName = 'verify-hub';
  readonly organizationId = 'org-demo';
  readonly contacts = new Map<number, FakeBrevoContact>();
  readonly attributes = new Map<string, { name: string; category: string; type: string }>();
  readonly lists = new Map<number, { id: number; name: string; folderId: number }>();
  readonly folders = new Map<number, { id: number; name: string }>([[1, { id: 1, name: 'Your first folder' }]]);
  readonly webhooks = new Map<number, Webhook>();
  /** Segments: the contact ids each holds (Brevo computes them from conditions; a test names them). */
  readonly segments = new Map<number, Set<number>>();
  readonly processes = new Map<number, Process>();
  /** Every call, as `METHOD /path` (no query). */
  readonly calls: string[] = [];
  /** Contacts' attribute writes, by contact id: one per import row or PUT that set at least one value. */
  readonly writesPerContact = new Map<number, number>();
  /** Every change of consent or list membership: must stay empty unless the user chose a clean action (imports' list additions to `allowedList` aside). */
  readonly consentChanges: ConsentChange[] = [];
  /** Every import request's body. */
  readonly imports: { listIds: number[]; rows: number; emailBlacklist: unknown; emptyContactsAttributes: unknown }[] = [];
  /** Deliveries the fake made to registered webhooks. */
  readonly deliveries: { url: string; status: number }[] = [];
  readonly limits = new FakeBrevoLimits();
  /** How long an import takes to apply (ms). */
  importDelayMs = 150;
  /**
   * How many changes made through the API are still delivered to `contactUpdated`/`listAddition`
   * webhooks, as Brevo does, with the key's name in `api_key_name` (0: none; a big sync's echoes are sampled).
   */
  echoBudget = 0;
  /** Echo deliveries made (their answers are in `deliveries`). */
  echoes = 0;
  url = '';
  private readonly failing: { status: number; path?: RegExp }[] = [];
  private dropRows = 0;
  private server?: Server;
  private nextIds = { contact: 1, list: 10, folder: 2, webhook: 100, process: 1000 };

  addContact(email: string, attributes: Record<string, string | number | boolean> = {}, listIds: number[] = []): FakeBrevoContact {
    const now = new Date().toISOString();
    const contact = { id: this.nextIds.contact++, email, attributes: { ...attributes }, emailBlacklisted: false, smsBlacklisted: false, whatsappBlacklisted: false, listIds: [...listIds], createdAt: now, modifiedAt: now };
    this.contacts.set(contact.id, contact);
    return contact;
  }

  addList(name: string): number {
    const id = this.nextIds.list++;
    this.lists.set(id, { id, name, folderId: 1 });
    return id;
  }

  /** The next call whose path matches (any, without `path`) is answered `status` with nothing applied. */
  failNext(status: number, path?: RegExp): void {
    this.failing.push({ status, path });
  }

  /** The next `count` rows of imports are silently not applied (Brevo reports no per-row errors). */
  dropNextImportRows(count: number): void {
    this.dropRows += count;
  }

  /** The key is revoked: every call with it is refused (401). */
  revokeKey(): void {
    this.apiKey = `xkeysib-${randomBytes(16).toString('hex')}`;
  }

  /** Calls made, by `METHOD /path` pattern. */
  callCount(pattern: RegExp): number {
    return this.calls.filter((call) => pattern.test(call)).length;
  }

  async start(): Promise<this> {
    this.server = createServer({ keepAliveTimeout: FAKE_KEEP_ALIVE_MS }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v3`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Posts a marketing event to every webhook registered for it, with its auth, as Brevo does. */
  async deliver(event: 'contact_updated' | 'list_addition' | 'contact_deleted', email: string, extra: Record<string, unknown> = {}): Promise<number[]> {
    const name = { contact_updated: 'contactUpdated', list_addition: 'listAddition', contact_deleted: 'contactDeleted' }[event];
    const statuses: number[] = [];
    for (const hook of this.webhooks.values()) {
      if (hook.type !== 'marketing' || !hook.events.includes(name)) continue;
      const body = JSON.stringify({ id: hook.id, event, email, key: 'fake-key', date: new Date().toISOString(), ts: Math.floor(Date.now() / 1000), api_key_name: '', ...extra });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (hook.auth?.type === 'bearer' && hook.auth.token) headers.authorization = `Bearer ${hook.auth.token}`;
      const answer = await fetch(hook.url, { method: 'POST', headers, body }).catch(() => undefined);
      this.deliveries.push({ url: hook.url, status: answer?.status ?? 0 });
      statuses.push(answer?.status ?? 0);
    }
    return statuses;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The budget is taken when the request arrives (its headers), as Brevo counts it, not once its body is read.
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/v3/, '');
    const call = `${req.method} ${path}`;
    this.calls.push(call);
    const bucket: Bucket = path.startsWith('/contacts') ? 'contacts' : 'other';
    const send = (answer: Answer, headers: Record<string, string> = {}) => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    };
    if (req.headers['api-key'] !== this.apiKey) {
      req.resume();
      return send({ status: 401, body: { code: 'unauthorized', message: 'Key not found' } });
    }
    const window = this.limits.take(bucket);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!window.allowed) return send({ status: 429, body: { code: 'too_many_requests', message: 'The expected rate limit is exceeded.' } }, window.headers);
    const failure = this.failing.findIndex((f) => !f.path || f.path.test(call));
    if (failure >= 0) {
      const [{ status }] = this.failing.splice(failure, 1) as [{ status: number }];
      if (status === 429) return send({ status, body: { code: 'too_many_requests', message: 'The expected rate limit is exceeded.' } }, { ...window.headers, 'x-sib-ratelimit-remaining': '0', 'x-sib-ratelimit-reset': '1' });
      return send({ status, body: { code: 'internal_error', message: 'Internal error' } }, window.headers);
    }
    let body: Record<string, unknown> = {};
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      return send({ status: 400, body: { code: 'bad_request', message: 'Invalid JSON' } }, window.headers);
    }
    send(this.route(req.method ?? 'GET', path, url.searchParams, body), window.headers);
  }

  private route(method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): Answer {
    const idOf = (pattern: RegExp) => Number(pattern.exec(path)?.[1]);
    if (method === 'GET' && path === '/account') return { status: 200, body: { organization_id: this.organizationId, user_id: 1, enterprise: false, companyName: 'Demo Shop', email: 'owner@demo.example', firstName: 'D', lastName: 'S', plan: [], relay: { enabled: false, data: { userName: 'owner@demo.example', relay: 'smtp-relay.brevo.com', port: 587 } } } satisfies Brevo.GetAccountResponse };
    if (method === 'GET' && path === '/contacts') return this.contactsPage(query);
    if (method === 'GET' && path === '/contacts/attributes') return { status: 200, body: { attributes: [...this.attributes.values()] } as Brevo.GetAttributesResponse };
    const attribute = /^\/contacts\/attributes\/(\w+)\/(\w+)$/.exec(path);
    if (method === 'POST' && attribute) {
      const [, category, name] = attribute as unknown as [string, string, string];
      if (this.attributes.has(name)) return { status: 400, body: { code: 'invalid_parameter', message: 'Attribute name must be unique' } };
      this.attributes.set(name, { name, category, type: String(body.type ?? 'text') });
      return { status: 201 };
    }
    if (method === 'GET' && path === '/contacts/lists') return this.paged('lists', [...this.lists.values()], query);
    if (method === 'POST' && path === '/contacts/lists') {
      if (!this.folders.has(Number(body.folderId))) return { status: 400, body: { code: 'invalid_parameter', message: 'Folder id is not valid' } };
      const id = this.addList(String(body.name));
      return { status: 201, body: { id } satisfies Brevo.CreateListResponse };
    }
    if (method === 'GET' && /^\/contacts\/lists\/\d+$/.test(path)) {
      const list = this.lists.get(idOf(/(\d+)$/));
      return list ? { status: 200, body: { ...list, totalBlacklisted: 0, totalSubscribers: 0, uniqueSubscribers: 0, createdAt: '2026-01-01T00:00:00Z' } satisfies Brevo.GetListResponse } : { status: 404, body: { code: 'document_not_found', message: 'List ID does not exist' } };
    }
    if (method === 'GET' && path === '/contacts/folders') return this.paged('folders', [...this.folders.values()], query);
    if (method === 'POST' && path === '/contacts/folders') {
      const id = this.nextIds.folder++;
      this.folders.set(id, { id, name: String(body.name) });
      return { status: 201, body: { id } satisfies Brevo.CreateFolderResponse };
    }
    if (method === 'POST' && path === '/contacts/import') return this.startImport(body);
    if (method === 'POST' && path === '/contacts/batch') return { status: 400, body: { code: 'method_not_allowed', message: 'This endpoint is deprecated' } };
    const one = /^\/contacts\/([^/]+)$/.exec(path);
    if (one && (method === 'GET' || method === 'PUT')) {
      const identifier = decodeURIComponent(one[1]!);
      const contact = query.get('identifierType') === 'contact_id' || /^\d+$/.test(identifier) ? this.contacts.get(Number(identifier)) : [...this.contacts.values()].find((c) => c.email.toLowerCase() === identifier.toLowerCase());
      if (!contact) return { status: 404, body: { code: 'document_not_found', message: 'Contact does not exist' } };
      if (method === 'GET') return { status: 200, body: contact satisfies Partial<Brevo.GetContactInfoResponse> };
      return this.updateContact(contact, body);
    }
    const process = /^\/processes\/(\d+)$/.exec(path);
    if (method === 'GET' && process) {
      const found = this.processes.get(Number(process[1]));
      return found ? { status: 200, body: { id: found.id, name: 'IMPORTUSER', status: this.settle(found).status } satisfies Brevo.GetProcessResponse } : { status: 404, body: { code: 'document_not_found', message: 'Process does not exist' } };
    }
    if (method === 'GET' && path === '/webhooks') return { status: 200, body: { webhooks: [...this.webhooks.values()].filter((w) => !query.get('type') || w.type === query.get('type')).map((w) => ({ ...w, type: w.type as Brevo.GetWebhook.Type, createdAt: '2026-01-01T00:00:00Z', modifiedAt: '2026-01-01T00:00:00Z' })) } satisfies Brevo.GetWebhooksResponse };
    if (method === 'POST' && path === '/webhooks') {
      const id = this.nextIds.webhook++;
      this.webhooks.set(id, { id, url: String(body.url), type: String(body.type ?? 'transactional'), events: (body.events as string[]) ?? [], description: String(body.description ?? ''), auth: body.auth as Webhook['auth'] });
      return { status: 201, body: { id } satisfies Brevo.CreateWebhookResponse };
    }
    const webhook = /^\/webhooks\/(\d+)$/.exec(path);
    if (method === 'DELETE' && webhook) return this.webhooks.delete(Number(webhook[1])) ? { status: 204 } : { status: 404, body: { code: 'document_not_found', message: 'Webhook does not exist' } };
    return { status: 404, body: { code: 'not_found', message: `${method} ${path} is not part of this fake` } };
  }

  private paged(key: string, items: unknown[], query: URLSearchParams): Answer {
    const limit = Number(query.get('limit') ?? 10);
    const offset = Number(query.get('offset') ?? 0);
    if (!(limit >= 1 && limit <= 50)) return { status: 400, body: { code: 'invalid_parameter', message: 'Limit exceeds max value' } };
    return { status: 200, body: { [key]: items.slice(offset, offset + limit), count: items.length } };
  }

  private contactsPage(query: URLSearchParams): Answer {
    this.settleAll();
    const limit = Number(query.get('limit') ?? 50);
    const offset = Number(query.get('offset') ?? 0);
    if (!(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) return { status: 400, body: { code: 'out_of_range', message: 'Limit exceeds max value' } };
    const numbers = (name: string) => query.getAll(name).flatMap((v) => v.split(',')).filter(Boolean).map(Number);
    const ids = numbers('ids');
    const listIds = numbers('listIds');
    const modifiedSince = query.get('modifiedSince');
    if (modifiedSince && Number.isNaN(Date.parse(modifiedSince))) return { status: 400, body: { code: 'invalid_parameter', message: 'modifiedSince is not a valid date' } };
    let all = [...this.contacts.values()];
    const segmentId = query.get('segmentId');
    if (segmentId !== null) {
      const members = this.segments.get(Number(segmentId));
      if (!members) return { status: 404, body: { code: 'document_not_found', message: 'Segment ID does not exist' } };
      all = all.filter((c) => members.has(c.id));
    }
    // Sets and one parse: reads by id (500 at a time) scanned every contact once per id asked.
    const idSet = new Set(ids);
    if (ids.length) all = all.filter((c) => idSet.has(c.id));
    if (listIds.length) all = all.filter((c) => c.listIds.some((id) => listIds.includes(id)));
    const since = modifiedSince ? Date.parse(modifiedSince) : undefined;
    if (since !== undefined) all = all.filter((c) => Date.parse(c.modifiedAt) >= since);
    if (query.get('sort') !== 'asc') all.reverse();
    return { status: 200, body: { contacts: all.slice(offset, offset + limit), count: all.length } satisfies Brevo.GetContacts };
  }

  private touch(contact: FakeBrevoContact): void {
    contact.modifiedAt = new Date(Math.max(Date.now(), Date.parse(contact.modifiedAt) + 1)).toISOString();
  }

  /** Sets the known attributes of `values` (unknown ones are ignored, as Brevo does); whether any was given. */
  private setAttributes(contact: FakeBrevoContact, values: Record<string, unknown> | undefined): boolean {
    let set = false;
    for (const [name, value] of Object.entries(values ?? {})) {
      const attribute = this.attributes.get(name.toUpperCase());
      if (!attribute || value === '' || value === null) continue;
      contact.attributes[attribute.name] = attribute.type === 'float' ? Number(value) : (value as string);
      set = true;
    }
    if (set) this.writesPerContact.set(contact.id, (this.writesPerContact.get(contact.id) ?? 0) + 1);
    return set;
  }

  private updateContact(contact: FakeBrevoContact, body: Record<string, unknown>): Answer {
    const set = this.setAttributes(contact, body.attributes as Record<string, unknown> | undefined);
    if (body.emailBlacklisted !== undefined) {
      this.consentChanges.push({ contactId: contact.id, what: 'emailBlacklisted', value: Boolean(body.emailBlacklisted), via: 'PUT /contacts' });
      contact.emailBlacklisted = Boolean(body.emailBlacklisted);
    }
    for (const id of (body.listIds as number[] | undefined) ?? []) this.addToList(contact, id, 'PUT /contacts');
    for (const id of (body.unlinkListIds as number[] | undefined) ?? []) {
      this.consentChanges.push({ contactId: contact.id, what: 'list-removed', value: id, via: 'PUT /contacts' });
      contact.listIds = contact.listIds.filter((l) => l !== id);
    }
    this.touch(contact);
    if (set) this.echo('contact_updated', contact.email, { content: [body.attributes] });
    return { status: 204 };
  }

  /** A change made with the API key, delivered while the echo budget lasts. */
  private echo(event: 'contact_updated' | 'list_addition', email: string, extra: Record<string, unknown>): void {
    if (this.echoBudget <= 0) return;
    this.echoBudget--;
    this.echoes++;
    void this.deliver(event, email, { api_key_name: this.apiKeyName, ...extra });
  }

  private addToList(contact: FakeBrevoContact, listId: number, via: string): void {
    if (contact.listIds.includes(listId)) return;
    contact.listIds.push(listId);
    this.consentChanges.push({ contactId: contact.id, what: 'list-added', value: listId, via });
    this.echo('list_addition', contact.email, { list_id: [listId] });
  }

  private startImport(body: Record<string, unknown>): Answer {
    const listIds = (body.listIds as number[] | undefined) ?? [];
    if (!listIds.length && !body.newList) return { status: 400, body: { code: 'invalid_parameter', message: 'listIds or newList is mandatory' } };
    if (listIds.some((id) => !this.lists.has(id))) return { status: 400, body: { code: 'invalid_parameter', message: 'List ID does not exist' } };
    const rows = (body.jsonBody as Process['rows'] | undefined) ?? [];
    if (!Array.isArray(rows) || rows.length === 0) return { status: 400, body: { code: 'invalid_parameter', message: 'jsonBody, fileBody or fileUrl is mandatory' } };
    this.imports.push({ listIds, rows: rows.length, emailBlacklist: body.emailBlacklist, emptyContactsAttributes: body.emptyContactsAttributes });
    const id = this.nextIds.process++;
    this.processes.set(id, { id, status: 'queued', rows, listIds, emailBlacklist: body.emailBlacklist === true, dueAt: Date.now() + this.importDelayMs });
    setTimeout(() => this.settleAll(), this.importDelayMs + 5).unref();
    return { status: 202, body: { processId: id } satisfies Brevo.ImportContactsResponse };
  }

  private settleAll(): void {
    for (const process of this.processes.values()) this.settle(process);
  }

  /** Applies a due import: rows by address (a new address creates a contact, as Brevo does), silently dropping what `dropNextImportRows` asked. */
  private settle(process: Process): Process {
    if (process.status === 'completed' || Date.now() < process.dueAt) {
      if (process.status === 'queued') process.status = 'in_process';
      return process;
    }
    const byEmail = new Map([...this.contacts.values()].map((c) => [c.email.toLowerCase(), c] as const));
    for (const row of process.rows) {
      if (this.dropRows > 0) {
        this.dropRows--;
        continue;
      }
      const contact = byEmail.get(row.email.toLowerCase()) ?? this.addContact(row.email);
      const set = this.setAttributes(contact, row.attributes);
      for (const listId of process.listIds) this.addToList(contact, listId, 'POST /contacts/import');
      if (process.emailBlacklist) {
        this.consentChanges.push({ contactId: contact.id, what: 'emailBlacklisted', value: true, via: 'POST /contacts/import' });
        contact.emailBlacklisted = true;
      }
      this.touch(contact);
      if (set) this.echo('contact_updated', contact.email, { content: [row.attributes] });
    }
    process.status = 'completed';
    return process;
  }
}
