import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ok, type FakeAnswer } from './fake-answer';
import { listContacts, type ContactReads } from './fake-contacts';
import { FakeImports } from './fake-imports';
import { schemaRoute } from './fake-schema';
import { FakeStore } from './fake-store';
import { FakeWebhooks } from './fake-webhooks';

export interface FakeActivecampaignOptions {
  /** Requests a second the account takes, whatever the key (ActiveCampaign: 5). */
  requestsPerSecond?: number;
  /** Bulk imports a minute (ActiveCampaign: 100; single-contact imports 20). Suites that compress time raise both. */
  importsPerMinute?: number;
}

export interface FakeCall {
  method: string;
  path: string;
  status: number;
}

/** A sliding window of request times: how long until one more fits, 0 when it fits now. */
class Window {
  private readonly times: number[] = [];
  constructor(
    private readonly count: number,
    private readonly ms: number,
  ) {}
  admit(now: number): number {
    while (this.times.length && now - this.times[0]! >= this.ms) this.times.shift();
    if (this.times.length >= this.count) return this.times[0]! + this.ms - now;
    this.times.push(now);
    return 0;
  }
}

/**
 * A fake ActiveCampaign account's API v3 on loopback (`/api/3/...`), behaving as ActiveCampaign
 * documents: the `Api-Token` header (401 when wrong or revoked), 5 requests a second per account
 * whatever the key (429 with `Retry-After` in seconds beyond), bulk imports limited to 100 calls a
 * minute (20 for single-contact imports), contacts paged at most 100 by `id_greater`, custom fields and
 * their list relations, tags, async bulk imports with per-contact failures, webhooks and form-encoded
 * deliveries. It records every call, and any attempt to change a list status (`POST /contactLists`, an
 * import's `subscribe`/`unsubscribe`) or to import without `exclude_automations`: tests assert none.
 */
export class FakeActivecampaign {
  /** The account URL a user pastes in; calls reach the fake through ACTIVECAMPAIGN_API_BASE. */
  readonly accountUrl = 'https://demo.api-us1.com';
  readonly account = 'demo';
  token = `ac-${randomBytes(20).toString('hex')}`;
  readonly store = new FakeStore();
  readonly imports = new FakeImports(this.store);
  readonly webhooks = new FakeWebhooks(this.store);
  readonly calls: FakeCall[] = [];
  readonly reads: ContactReads = { limits: [], offsetPages: 0 };
  /** `POST /contactLists` calls: a list subscription changed through the API. Must stay empty. */
  readonly contactListChanges: unknown[] = [];
  /** Requests refused with 429. */
  rateLimited = 0;
  url = '';
  private readonly failing: { path: string; status: number }[] = [];
  private readonly window: Window;
  private readonly importWindow: Window;
  private readonly singleImportWindow: Window;
  private server?: Server;

  constructor(options: FakeActivecampaignOptions = {}) {
    this.window = new Window(options.requestsPerSecond ?? 5, 1000);
    this.importWindow = new Window(options.importsPerMinute ?? 100, 60_000);
    this.singleImportWindow = new Window(Math.floor((options.importsPerMinute ?? 100) / 5), 60_000);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The token is revoked: every call with it is refused (401). */
  revokeToken(): void {
    this.token = `ac-${randomBytes(20).toString('hex')}`;
  }

  /** The next call to `path` (`/import/bulk_import`, ...) is answered `status` (429 with Retry-After: 1), nothing applied. */
  failNext(path: string, status: 429 | 500 | 503): void {
    this.failing.push({ path, status });
  }

  /** How many calls were made to a path (`GET /contacts`), answered or not. */
  count(method: string, path: string): number {
    return this.calls.filter((c) => c.method === method && c.path === path).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/^\/api\/3/, '');
    const answer = this.answer(method, path, url.searchParams, raw, req.headers['api-token']);
    this.calls.push({ method, path: path.replace(/\/\d+$|\/[0-9a-f-]{36}$/, '/:id'), status: answer.status });
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }

  private answer(method: string, path: string, query: URLSearchParams, raw: Buffer, token: string | string[] | undefined): FakeAnswer {
    if (token !== this.token) return { status: 403, body: { message: 'You are not authorized to access this resource' } };
    const now = Date.now();
    const wait = this.window.admit(now);
    if (wait > 0) return this.tooMany(wait);
    const failure = this.failing.findIndex((f) => f.path === path);
    if (failure >= 0) {
      const { status } = this.failing.splice(failure, 1)[0]!;
      return status === 429 ? this.tooMany(1000) : { status, body: { message: 'Service unavailable' } };
    }
    let body: Record<string, unknown> = {};
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        return { status: 400, body: { message: 'Malformed JSON' } };
      }
    }
    if (method === 'GET' && path === '/users/me') return ok({ user: { id: '1', username: 'admin', email: 'admin@example.com' } });
    if (method === 'GET' && path === '/contacts') return listContacts(this.store, query, this.reads);
    if (method === 'POST' && path === '/import/bulk_import') {
      const single = Array.isArray(body.contacts) && body.contacts.length === 1;
      const importWait = (single ? this.singleImportWindow : this.importWindow).admit(now);
      if (importWait > 0) return this.tooMany(importWait);
      return this.imports.start(body, raw.length);
    }
    if (method === 'GET' && path === '/import/info') return this.imports.info(query);
    if (method === 'POST' && path === '/contactLists') {
      this.contactListChanges.push(body);
      return ok({ contactList: body.contactList }, 201);
    }
    return schemaRoute(this.store, method, path, query, body) ?? this.webhooks.route(method, path, body) ?? { status: 404, body: { message: `No route ${method} ${path}` } };
  }

  private tooMany(waitMs: number): FakeAnswer {
    this.rateLimited++;
    return { status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) } };
  }
}
