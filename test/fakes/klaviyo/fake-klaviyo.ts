import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeRateLimits, OPENAPI_SUBSET, OPERATIONS, type FakeOperation } from './fake-klaviyo-limits';
import { FakeKlaviyoStore, type FakeImportJob, type FakeProfile, type FakeSuppressJob } from './fake-klaviyo-store';
import { FakeKlaviyoOAuth } from './fake-klaviyo-oauth';
import { FAKE_KEEP_ALIVE_MS } from '../keep-alive';

export * from './fake-klaviyo-store';
export { OPENAPI_SUBSET, OPERATIONS } from './fake-klaviyo-limits';

/** Every scope a private key can hold that the fake's operations ask for. */
export const ALL_SCOPES = [...new Set(Object.values(OPERATIONS).flatMap((op) => op.scopes)), 'accounts:read'];

export interface RecordedCall {
  method: string;
  path: string;
  operationId: string;
  status: number;
  credential: string;
  /** When it arrived (epoch ms). */
  at: number;
}

/** An attempt to change consent, a subscription or a list membership: the hub must never make one. */
export interface ConsentAttempt {
  method: string;
  path: string;
  why: string;
}

export interface FakeFlowWebhook {
  listId: string;
  url: string;
  headers: Record<string, string>;
  /** JSON with Klaviyo's `{{ person.KlaviyoID }}` and `{{ person.email }}` filled in per profile. */
  body: string;
}

export interface FakeKlaviyoOptions {
  /** Polls a job answers `queued`/`processing` before it is complete (default 1). */
  pollsToComplete?: number;
  /** Multiplies every burst and steady limit (default 1: Klaviyo's published numbers). */
  rateScale?: number;
  latencyMs?: number;
}

/** Route patterns: the operation an API call is, by method and path. */
const ROUTES: [string, RegExp, string][] = [
  ['GET', /^\/api\/accounts\/?$/, 'get_accounts'],
  ['GET', /^\/api\/lists\/?$/, 'get_lists'],
  ['GET', /^\/api\/segments\/?$/, 'get_segments'],
  ['GET', /^\/api\/profiles\/?$/, 'get_profiles'],
  ['GET', /^\/api\/lists\/([^/]+)\/profiles\/?$/, 'get_profiles_for_list'],
  ['GET', /^\/api\/segments\/([^/]+)\/profiles\/?$/, 'get_profiles_for_segment'],
  ['POST', /^\/api\/profile-bulk-import-jobs\/?$/, 'bulk_import_profiles'],
  ['GET', /^\/api\/profile-bulk-import-jobs\/([^/]+)\/?$/, 'get_bulk_import_profiles_job'],
  ['GET', /^\/api\/profile-bulk-import-jobs\/([^/]+)\/import-errors\/?$/, 'get_errors_for_bulk_import_profiles_job'],
  ['POST', /^\/api\/profile-suppression-bulk-create-jobs\/?$/, 'bulk_suppress_profiles'],
  ['GET', /^\/api\/profile-suppression-bulk-create-jobs\/([^/]+)\/?$/, 'get_bulk_suppress_profiles_job'],
];

/** Calls that change consent or list membership: recorded and answered as Klaviyo would, so a test can assert there were none. */
const CONSENT_ROUTES: [string, RegExp, string][] = [
  ['POST', /^\/api\/profile-subscription-bulk-create-jobs\/?$/, 'subscribes profiles (and lifts their unsubscribe and spam suppressions)'],
  ['POST', /^\/api\/profile-subscription-bulk-delete-jobs\/?$/, 'unsubscribes profiles'],
  ['POST', /^\/api\/profile-suppression-bulk-delete-jobs\/?$/, 'lifts suppressions'],
  ['POST', /^\/api\/lists\/[^/]+\/relationships\/profiles\/?$/, 'adds profiles to a list (fires its flows)'],
  ['DELETE', /^\/api\/lists\/[^/]+\/relationships\/profiles\/?$/, 'removes profiles from a list'],
  ['POST', /^\/api\/profile-import\/?$/, 'single profile import (may carry subscriptions)'],
];

const IMPORT_MAX_PROFILES = 10_000;
const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
const SUPPRESS_MAX = 100;
/** Revisions look like dates (2026-07-15), optionally with a suffix (.pre). */
const REVISION = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/;

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly source: { pointer?: string; parameter?: string } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

const encodeCursor = (key: string) => Buffer.from(key).toString('base64url');
const decodeCursor = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');

/**
 * A fake of Klaviyo's API (revision 2026-07-15) for tests and benches, on loopback, enforcing what the
 * connector relies on as Klaviyo documents it: the `revision` header on every call; private keys
 * (`Klaviyo-API-Key pk_...`) and OAuth tokens with their scopes (401 unknown, 403 a scope missing);
 * cursor paging of at most 100 profiles (`page[size]`); `greater-than(updated,...)` on profiles and
 * not on list or segment members; sparse fieldsets; profile bulk import jobs (<= 10,000 profiles and
 * 5 MB, queued -> processing -> complete, per-profile import errors); suppression jobs (<= 100); every
 * operation's burst and steady limits from Klaviyo's OpenAPI description (429 with Retry-After and a
 * `throttled` error); OAuth with PKCE (fake-klaviyo-oauth.ts); flows that post a webhook when someone
 * joins a list. It records every call, every property write per profile, and any attempt to change
 * consent, subscriptions or list membership. Its answers are checked against Klaviyo's own OpenAPI
 * description (test/klaviyo/openapi-conformance.test.ts).
 */
export class FakeKlaviyo {
  readonly accountId = 'AbC123';
  readonly accountName = 'Demo Store';
  readonly store = new FakeKlaviyoStore();
  readonly limits: FakeRateLimits;
  readonly oauth: FakeKlaviyoOAuth;
  /** Private keys and their scopes. */
  readonly keys = new Map<string, Set<string>>();
  /** The key made with every scope. */
  apiKey: string;
  readonly calls: RecordedCall[] = [];
  readonly consentAttempts: ConsentAttempt[] = [];
  /** Bulk import jobs that asked for a list relationship (adding profiles to a list fires its flows). */
  readonly listRelationshipAttempts: string[] = [];
  /** How many times each profile's properties were changed by an import job. */
  readonly writesPerProfile = new Map<string, number>();
  /** Profiles an import job refuses, by address, with the reason (a per-profile import error). */
  readonly refuseEmails = new Map<string, string>();
  readonly flows: FakeFlowWebhook[] = [];
  readonly flowDeliveries: { url: string; status: number }[] = [];
  url = '';
  private readonly failing = new Map<string, { status: number; retryAfter?: number }[]>();
  private server?: Server;

  constructor(readonly options: FakeKlaviyoOptions = {}) {
    this.limits = new FakeRateLimits(options.rateScale ?? 1);
    this.oauth = new FakeKlaviyoOAuth(() => this.url);
    this.apiKey = this.createKey(ALL_SCOPES);
  }

  /** A new private key holding `scopes`. */
  createKey(scopes: string[]): string {
    const key = `pk_${randomBytes(17).toString('hex')}`;
    this.keys.set(key, new Set(scopes));
    return key;
  }

  /** The key is deleted in Klaviyo: every call with it answers 401. */
  revokeKey(key = this.apiKey): void {
    this.keys.delete(key);
  }

  /** The next `count` calls of `operationId` answer `status` (429 with Retry-After `retryAfter` seconds). */
  failNext(operationId: string, status: number, count = 1, retryAfter = 1): void {
    const queue = this.failing.get(operationId) ?? [];
    for (let i = 0; i < count; i++) queue.push({ status, retryAfter });
    this.failing.set(operationId, queue);
  }

  addList(name: string): string {
    const id = `L${randomBytes(3).toString('hex')}`;
    this.store.lists.set(id, name);
    return id;
  }

  addSegment(name: string): string {
    const id = `S${randomBytes(3).toString('hex')}`;
    this.store.segments.set(id, name);
    return id;
  }

  addProfile(email: string, options: { lists?: string[]; segments?: string[]; properties?: Record<string, unknown> } = {}): FakeProfile {
    return this.store.addProfile(email, options);
  }

  /** A flow triggered when someone joins `listId`, whose Webhook action posts `body` to `url` with `headers`. */
  addFlowWebhook(flow: FakeFlowWebhook): void {
    this.flows.push(flow);
  }

  /** Someone joins a list (a signup form): the profile is made or found, added, and the list's flows fire. */
  async joinList(email: string, listId: string): Promise<FakeProfile> {
    const profile = this.store.byEmail(email) ?? this.store.addProfile(email);
    profile.lists.add(listId);
    for (const flow of this.flows.filter((f) => f.listId === listId)) {
      const body = flow.body.replace(/\{\{\s*person\.KlaviyoID\s*\}\}/g, profile.id).replace(/\{\{\s*person\.email\s*\}\}/g, profile.email);
      const answer = await fetch(flow.url, { method: 'POST', headers: { 'content-type': 'application/json', ...flow.headers }, body });
      await answer.arrayBuffer();
      this.flowDeliveries.push({ url: flow.url, status: answer.status });
    }
    return profile;
  }

  /** Calls of one operation, as recorded. */
  callsOf(operationId: string): RecordedCall[] {
    return this.calls.filter((c) => c.operationId === operationId);
  }

  async start(port = 0): Promise<this> {
    this.server = createServer({ keepAliveTimeout: FAKE_KEEP_ALIVE_MS }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake.klaviyo');
    const method = req.method ?? 'GET';
    if (this.options.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.options.latencyMs));
    if (url.pathname.startsWith('/oauth/')) {
      const answer = this.oauth.handle(method, url, req.headers, raw.toString('utf8'));
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
      return;
    }
    const credential = String(req.headers.authorization ?? '');
    let operationId = `${method} ${url.pathname}`;
    let status = 500;
    try {
      if (!REVISION.test(String(req.headers.revision ?? ''))) throw new Refusal(400, 'invalid', 'Invalid input.', 'The revision header is required and must be a date, like 2026-07-15.', { parameter: 'revision' });
      const scopes = this.scopesOf(credential);
      const consent = CONSENT_ROUTES.find(([m, pattern]) => m === method && pattern.test(url.pathname));
      if (consent) {
        this.consentAttempts.push({ method, path: url.pathname, why: consent[2] });
        status = 202;
        res.writeHead(202).end();
        return;
      }
      const route = ROUTES.map(([m, pattern, id]) => ({ m, match: pattern.exec(url.pathname), id })).find((r) => r.m === method && r.match);
      if (!route) throw new Refusal(404, 'not_found', 'Not found.', `${method} ${url.pathname} is not an operation of this fake`);
      operationId = route.id;
      const op = OPERATIONS[route.id]!;
      const missing = op.scopes.filter((s) => !scopes.has(s));
      if (missing.length) throw new Refusal(403, 'permission_denied', 'You do not have permission to perform this action.', 'You do not have permission to perform this action.');
      const injected = this.failing.get(route.id)?.shift();
      if (injected) throw this.injected(injected);
      const wait = this.limits.take(op);
      if (wait !== undefined) throw new Refusal(429, 'throttled', 'Request was throttled.', `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`, {}, { 'retry-after': String(wait) });
      const answer = this.operate(op, route.match!, url, raw);
      status = answer.status;
      res.writeHead(status, { 'content-type': 'application/vnd.api+json' });
      res.end(JSON.stringify(answer.body));
    } catch (error) {
      const refusal = error instanceof Refusal ? error : new Refusal(500, 'error', 'A server error occurred.', (error as Error).message);
      status = refusal.status;
      res.writeHead(status, { 'content-type': 'application/vnd.api+json', ...refusal.headers });
      res.end(JSON.stringify({ errors: [{ id: randomUUID(), status: refusal.status, code: refusal.code, title: refusal.title, detail: refusal.detail, source: refusal.source }] }));
    } finally {
      this.calls.push({ method, path: url.pathname, operationId, status, credential: createHash('sha256').update(credential).digest('hex').slice(0, 12), at });
    }
  }

  private injected({ status, retryAfter }: { status: number; retryAfter?: number }): Refusal {
    if (status === 429) return new Refusal(429, 'throttled', 'Request was throttled.', `Request was throttled. Expected available in ${retryAfter} second.`, {}, { 'retry-after': String(retryAfter ?? 1) });
    if (status >= 500) return new Refusal(status, 'error', 'A server error occurred.', 'A server error occurred.');
    return new Refusal(status, 'invalid', 'Invalid input.', 'Refused on purpose by the test.');
  }

  private scopesOf(authorization: string): Set<string> {
    const key = /^Klaviyo-API-Key (\S+)$/.exec(authorization)?.[1];
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
    const scopes = key ? this.keys.get(key) : token ? this.oauth.scopesOfAccessToken(token) : undefined;
    if (!scopes) throw new Refusal(401, 'not_authenticated', 'Authentication credentials were not provided.', 'Missing or invalid authorization scheme. Please use Klaviyo-API-Key.');
    return scopes;
  }

  private operate(op: FakeOperation, match: RegExpExecArray, url: URL, raw: Buffer): { status: number; body: unknown } {
    const self = `${this.url}${url.pathname}`;
    switch (op.operationId) {
      case 'get_accounts':
        return { status: 200, body: { data: [this.account()], links: { self } } };
      case 'get_lists':
        return { status: 200, body: this.named('list', this.store.lists, url) };
      case 'get_segments':
        return { status: 200, body: this.named('segment', this.store.segments, url) };
      case 'get_profiles':
        return { status: 200, body: this.profilesPage(url, undefined) };
      case 'get_profiles_for_list':
      case 'get_profiles_for_segment': {
        const kind = op.operationId === 'get_profiles_for_list' ? 'list' : 'segment';
        const id = decodeURIComponent(match[1]!);
        if (!(kind === 'list' ? this.store.lists : this.store.segments).has(id)) throw new Refusal(404, 'not_found', 'Not found.', `A ${kind} with id ${id} does not exist.`);
        return { status: 200, body: this.profilesPage(url, { kind, id }) };
      }
      case 'bulk_import_profiles':
        return { status: 202, body: { data: this.importJobJson(this.createImportJob(raw)), links: { self } } };
      case 'get_bulk_import_profiles_job':
        return { status: 200, body: { data: this.importJobJson(this.pollImportJob(decodeURIComponent(match[1]!))), links: { self } } };
      case 'get_errors_for_bulk_import_profiles_job':
        return { status: 200, body: this.importErrors(decodeURIComponent(match[1]!), url) };
      case 'bulk_suppress_profiles':
        return { status: 202, body: { data: this.suppressJobJson(this.createSuppressJob(raw)), links: { self } } };
      case 'get_bulk_suppress_profiles_job':
        return { status: 200, body: { data: this.suppressJobJson(this.pollSuppressJob(decodeURIComponent(match[1]!))), links: { self } } };
      default:
        throw new Refusal(404, 'not_found', 'Not found.', op.operationId);
    }
  }

  private account() {
    return {
      type: 'account',
      id: this.accountId,
      attributes: {
        test_account: false,
        contact_information: { default_sender_name: this.accountName, default_sender_email: 'hello@demo-store.example', website_url: null, organization_name: this.accountName, street_address: { address1: '1 Main St', address2: null, city: 'Boston', region: 'MA', country: 'US', zip: '02110' } },
        industry: null,
        timezone: 'UTC',
        preferred_currency: 'USD',
        public_api_key: 'AbC123',
        locale: 'en-US',
      },
      links: { self: `${this.url}/api/accounts/${this.accountId}/` },
    };
  }

  private pageSize(url: URL, max: number, fallback: number): number {
    const text = url.searchParams.get('page[size]');
    if (text === null) return fallback;
    const size = Number(text);
    if (!Number.isInteger(size) || size < 1 || size > max) throw new Refusal(400, 'invalid', 'Invalid input.', `Page size must be an integer between 1 and ${max}.`, { parameter: 'page[size]' });
    return size;
  }

  private named(kind: 'list' | 'segment', items: Map<string, string>, url: URL) {
    const all = [...items.entries()];
    const size = 10;
    const from = Number(url.searchParams.get('page[cursor]') ? decodeCursor(url.searchParams.get('page[cursor]')!) : 0);
    const page = all.slice(from, from + size);
    const now = this.store.clock.now();
    const data = page.map(([id, name]) => ({
      type: kind,
      id,
      attributes: kind === 'list' ? { name, created: now, updated: now, opt_in_process: 'single_opt_in' } : { name, created: now, updated: now, is_active: true, is_processing: false, is_starred: false },
      links: { self: `${this.url}/api/${kind}s/${id}/` },
    }));
    const next = from + size < all.length ? this.linkWith(url, encodeCursor(String(from + size))) : undefined;
    return { data, links: { self: `${this.url}${url.pathname}`, ...(next ? { next } : {}) } };
  }

  private linkWith(url: URL, cursor: string): string {
    const next = new URL(`${this.url}${url.pathname}${url.search}`);
    next.searchParams.set('page[cursor]', cursor);
    return next.toString();
  }

  /** Profiles (of a list or segment), filtered and sorted as asked, paged by a keyset cursor (stable while profiles change). */
  private profilesPage(url: URL, of: { kind: 'list' | 'segment'; id: string } | undefined) {
    const size = this.pageSize(url, 100, 20);
    const filter = url.searchParams.get('filter');
    const sort = url.searchParams.get('sort');
    let profiles = [...this.store.profiles.values()];
    if (of) profiles = profiles.filter((p) => (of.kind === 'list' ? p.lists : p.segments).has(of.id));
    if (filter) profiles = profiles.filter(this.filterOf(filter, of !== undefined));
    if (sort && sort !== 'updated' && !(of && sort === 'joined_group_at')) throw new Refusal(400, 'invalid', 'Invalid input.', `Sort ${sort} is not supported here.`, { parameter: 'sort' });
    // Each profile's sort key made once (not in every comparison), and the cursor found by bisection:
    // a 25,000-profile sync reads 250 pages, each of which sorted the whole account again.
    const keyed = profiles.map((p) => ({ key: sort === 'updated' ? `${p.updated}|${p.id}` : p.id, p }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const cursor = url.searchParams.get('page[cursor]');
    const after = cursor ? decodeCursor(cursor) : undefined;
    const start = after === undefined ? 0 : firstAbove(keyed, after);
    const page = keyed.slice(start, start + size);
    const more = keyed.length > start + size;
    const fields = url.searchParams.get('fields[profile]')?.split(',');
    const data = page.map(({ p }) => this.profileJson(p, fields, of !== undefined));
    return { data, links: { self: `${this.url}${url.pathname}`, ...(more ? { next: this.linkWith(url, encodeCursor(page[page.length - 1]!.key)) } : {}) } };
  }

  private filterOf(filter: string, members: boolean): (p: FakeProfile) => boolean {
    const greater = /^greater-than\(updated,([^)]+)\)$/.exec(filter);
    if (greater) {
      // Klaviyo's list and segment member endpoints filter by email, phone, push token and joined_group_at only.
      if (members) throw new Refusal(400, 'invalid', 'Invalid input.', "'updated' is not a valid field for the resource 'profile' in this filter.", { parameter: 'filter' });
      const since = Date.parse(greater[1]!);
      if (Number.isNaN(since)) throw new Refusal(400, 'invalid', 'Invalid input.', `Invalid date-time ${greater[1]}.`, { parameter: 'filter' });
      return (p) => {
        const updated = Date.parse(p.updated);
        return updated > since || (updated === since && p.updated > greater[1]!);
      };
    }
    const any = /^any\(id,\[(.*)\]\)$/.exec(filter);
    if (any && !members) {
      const ids = new Set(JSON.parse(`[${any[1]}]`) as string[]);
      if (ids.size > 100) throw new Refusal(400, 'invalid', 'Invalid input.', 'At most 100 ids in any().', { parameter: 'filter' });
      return (p) => ids.has(p.id);
    }
    const equals = /^equals\(email,"([^"]*)"\)$/.exec(filter);
    if (equals) return (p) => p.email.toLowerCase() === equals[1]!.toLowerCase();
    throw new Refusal(400, 'invalid', 'Invalid input.', `Unsupported filter ${filter}.`, { parameter: 'filter' });
  }

  private profileJson(p: FakeProfile, fields: string[] | undefined, member: boolean) {
    const all: Record<string, unknown> = {
      email: p.email,
      phone_number: null,
      external_id: null,
      first_name: null,
      last_name: null,
      organization: null,
      locale: null,
      title: null,
      image: null,
      created: p.created,
      updated: p.updated,
      last_event_date: null,
      location: null,
      properties: { ...p.properties },
    };
    const attributes = fields ? Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) : all;
    // Required by Klaviyo's schema for members, whatever fields were asked for.
    if (member) attributes.joined_group_at = p.created;
    return { type: 'profile', id: p.id, attributes, links: { self: `${this.url}/api/profiles/${p.id}/` } };
  }

  private parseJson(raw: Buffer, type: string): Record<string, unknown> {
    let body: { data?: { type?: unknown; attributes?: Record<string, unknown>; relationships?: Record<string, unknown> } };
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      throw new Refusal(400, 'parse_error', 'Malformed request body.', 'The request body is not JSON.');
    }
    if (body.data?.type !== type) throw new Refusal(409, 'conflict', 'Conflict.', `data.type must be ${type}.`, { pointer: '/data/type' });
    return body.data as Record<string, unknown>;
  }

  private createImportJob(raw: Buffer): FakeImportJob {
    if (raw.length > IMPORT_MAX_BYTES) throw new Refusal(413, 'payload_too_large', 'Payload too large.', `The payload is larger than ${IMPORT_MAX_BYTES} bytes.`);
    const data = this.parseJson(raw, 'profile-bulk-import-job');
    const relationships = data.relationships as { lists?: unknown } | undefined;
    if (relationships?.lists) this.listRelationshipAttempts.push(JSON.stringify(relationships.lists));
    const profiles = ((data.attributes as { profiles?: { data?: unknown } } | undefined)?.profiles?.data ?? []) as { id?: string; attributes?: { email?: string; properties?: Record<string, unknown> } }[];
    if (!Array.isArray(profiles) || profiles.length === 0) throw new Refusal(400, 'invalid', 'Invalid input.', 'At least one profile is required.', { pointer: '/data/attributes/profiles/data' });
    if (profiles.length > IMPORT_MAX_PROFILES) throw new Refusal(400, 'invalid', 'Invalid input.', `A job takes at most ${IMPORT_MAX_PROFILES} profiles.`, { pointer: '/data/attributes/profiles/data' });
    const job: FakeImportJob = {
      id: this.store.newJobId(),
      status: 'queued',
      createdAt: this.store.clock.now(),
      profiles: profiles.map((p) => ({ id: p.id ?? undefined, email: p.attributes?.email, properties: p.attributes?.properties ?? {} })),
      failed: [],
      polls: 0,
    };
    this.store.importJobs.set(job.id, job);
    return job;
  }

  private pollImportJob(id: string): FakeImportJob {
    const job = this.store.importJobs.get(id);
    if (!job) throw new Refusal(404, 'not_found', 'Not found.', `No profile-bulk-import-job with id ${id}.`);
    job.polls++;
    if (job.status === 'queued' || job.status === 'processing') {
      if (job.polls >= (this.options.pollsToComplete ?? 1)) this.runImportJob(job);
      else job.status = 'processing';
    }
    return job;
  }

  /** Applies a job's profiles: found by id, else by address (made when new); a refused address is an import error. */
  private runImportJob(job: FakeImportJob): void {
    job.profiles.forEach((p, index) => {
      const refused = p.email ? this.refuseEmails.get(p.email.toLowerCase()) : undefined;
      if (refused) return job.failed.push({ index, code: 'invalid', title: 'Invalid input.', detail: refused });
      const profile = (p.id ? this.store.profiles.get(p.id) : undefined) ?? (p.email ? this.store.byEmail(p.email) ?? this.store.addProfile(p.email) : undefined);
      if (!profile) return job.failed.push({ index, code: 'not_found', title: 'Not found.', detail: `No profile with id ${p.id}.` });
      if (this.store.setProperties(profile, p.properties)) this.writesPerProfile.set(profile.id, (this.writesPerProfile.get(profile.id) ?? 0) + 1);
    });
    job.status = 'complete';
    job.completedAt = this.store.clock.now();
  }

  private importJobJson(job: FakeImportJob) {
    const done = job.status === 'complete';
    return {
      type: 'profile-bulk-import-job',
      id: job.id,
      attributes: {
        status: job.status,
        created_at: job.createdAt,
        total_count: job.profiles.length,
        completed_count: done ? job.profiles.length - job.failed.length : 0,
        failed_count: done ? job.failed.length : 0,
        completed_at: job.completedAt ?? null,
        expires_at: job.createdAt.replace(/^(\d{4})/, (y) => String(Number(y) + 1)),
        started_at: job.status === 'queued' ? null : job.createdAt,
      },
      links: { self: `${this.url}/api/profile-bulk-import-jobs/${job.id}/` },
    };
  }

  private importErrors(id: string, url: URL) {
    const job = this.store.importJobs.get(id);
    if (!job) throw new Refusal(404, 'not_found', 'Not found.', `No profile-bulk-import-job with id ${id}.`);
    const size = this.pageSize(url, 100, 20);
    const from = Number(url.searchParams.get('page[cursor]') ? decodeCursor(url.searchParams.get('page[cursor]')!) : 0);
    const page = job.failed.slice(from, from + size);
    const data = page.map((f) => {
      const sent = job.profiles[f.index]!;
      return {
        type: 'import-error',
        id: `${job.id}-${f.index}`,
        attributes: { code: f.code, title: f.title, detail: f.detail, source: { pointer: `/data/attributes/profiles/data/${f.index}` }, original_payload: { ...(sent.id ? { id: sent.id } : {}), email: sent.email, properties: sent.properties } },
      };
    });
    const next = from + size < job.failed.length ? this.linkWith(url, encodeCursor(String(from + size))) : undefined;
    return { data, links: { self: `${this.url}${url.pathname}`, ...(next ? { next } : {}) } };
  }

  private createSuppressJob(raw: Buffer): FakeSuppressJob {
    const data = this.parseJson(raw, 'profile-suppression-bulk-create-job');
    const profiles = ((data.attributes as { profiles?: { data?: unknown } } | undefined)?.profiles?.data ?? []) as { attributes?: { email?: string } }[];
    if (!Array.isArray(profiles) || profiles.length === 0) throw new Refusal(400, 'invalid', 'Invalid input.', 'At least one profile is required.', { pointer: '/data/attributes/profiles/data' });
    if (profiles.length > SUPPRESS_MAX) throw new Refusal(400, 'invalid', 'Invalid input.', `At most ${SUPPRESS_MAX} email addresses per request.`, { pointer: '/data/attributes/profiles/data' });
    const job: FakeSuppressJob = { id: this.store.newJobId(), status: 'queued', createdAt: this.store.clock.now(), emails: profiles.map((p) => String(p.attributes?.email ?? '')), skipped: 0, polls: 0 };
    this.store.suppressJobs.set(job.id, job);
    return job;
  }

  private pollSuppressJob(id: string): FakeSuppressJob {
    const job = this.store.suppressJobs.get(id);
    if (!job) throw new Refusal(404, 'not_found', 'Not found.', `No profile-suppression-bulk-create-job with id ${id}.`);
    job.polls++;
    const pending = job.status === 'queued' || job.status === 'processing';
    if (pending && job.polls >= (this.options.pollsToComplete ?? 1)) {
      for (const email of job.emails) {
        const profile = this.store.byEmail(email);
        if (!profile || profile.suppressed) job.skipped++;
        else profile.suppressed = true;
      }
      job.status = 'complete';
      job.completedAt = this.store.clock.now();
    } else if (pending) job.status = 'processing';
    return job;
  }

  private suppressJobJson(job: FakeSuppressJob) {
    const done = job.status === 'complete';
    return {
      type: 'profile-suppression-bulk-create-job',
      id: job.id,
      attributes: { status: job.status, created_at: job.createdAt, total_count: job.emails.length, completed_count: done ? job.emails.length - job.skipped : 0, completed_at: job.completedAt ?? null, skipped_count: done ? job.skipped : 0 },
      links: { self: `${this.url}/api/profile-suppression-bulk-create-jobs/${job.id}/` },
    };
  }
}

/** The index of the first of `sorted` (ascending by key) whose key is above `after`. */
function firstAbove(sorted: { key: string }[], after: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]!.key > after) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** The revision of the vendored description, which the fake speaks. */
export const FAKE_REVISION = OPENAPI_SUBSET.info.version;
