import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { FakeCampaigns } from './fake-campaigns';
import { deliveryForm, listed, post, webhookFromBody, type ChangeSource, type Delivery, type FakeWebhook, type StoredWebhook, type WebhookEvent } from './fake-webhooks';
import { unpublishedOperation } from './published-operations';
import { FAKE_KEEP_ALIVE_MS } from '../keep-alive';

/**
 * A fake of the Mailchimp Marketing API v3 for tests and benches, enforcing the real contract the
 * connector depends on: accounts by API key (Basic auth) or OAuth token (Bearer), lists owned by one
 * account, `count` <= 1,000 with offset paging, `status`, `since_last_changed` and `fields`
 * (dot notation), batch subscribe/update with at most 500 members (each needing `status` or
 * `status_if_new`), merge fields with duplicate-tag errors, the tags endpoint, segment members, the
 * `/batches` lifecycle pending -> started -> finished with a tar.gz results archive served at
 * `response_body_url`, at most 10 simultaneous connections per credential (429 above), problem+json
 * errors, and the OAuth token and metadata endpoints. It records which credential made each request,
 * every status change, and the peak of simultaneous requests per credential. Audience webhooks are
 * registered with events and sources and delivered (fake-webhooks.ts): a change made through the API
 * posts to webhooks with `sources.api`, `changeAsAdmin` and `subscribeAsUser` to those with `admin`, `user`.
 */

export type MemberStatus = 'subscribed' | 'unsubscribed' | 'cleaned' | 'pending' | 'transactional' | 'archived';

export interface FakeMember {
  id: string;
  email_address: string;
  status: MemberStatus;
  merge_fields: Record<string, string | number>;
  tags: string[];
  last_changed: string;
}

export interface MergeFieldDef {
  merge_id: number;
  tag: string;
  name: string;
  type: string;
}

export interface RecordedRequest {
  /** The API key or token the request carried (tests compare it; never printed). */
  credential: string;
  method: string;
  path: string;
  kind: 'read' | 'write' | 'poll';
  status: number;
}

export interface StatusChange {
  listId: string;
  email: string;
  from: MemberStatus;
  to: MemberStatus;
  via: string;
}

export interface FakeMailchimpOptions {
  /** Added to every API request, so that concurrency shows. */
  latencyMs?: number;
  /** Simultaneous requests allowed per credential (Mailchimp: 10). */
  maxConnections?: number;
  /** Time a batch stays pending before it starts, and the extra time before it finishes. */
  batchStartDelayMs?: number;
  batchFinishDelayMs?: number;
  /** Merge fields allowed per list (default 80). */
  mergeFieldLimit?: number;
}

interface Account {
  dc: string;
  userId: string;
  accountName: string;
}

interface FakeList {
  id: string;
  name: string;
  account: Account;
  members: FakeMember[];
  byHash: Map<string, FakeMember>;
  mergeFields: MergeFieldDef[];
  segments: Map<string, string[]>;
  tagNames: Set<string>;
  /** The audience's webhooks (GET/POST/DELETE /lists/:id/webhooks), with their signing secrets. */
  webhooks: StoredWebhook[];
}

interface Batch {
  id: string;
  credential: string;
  status: 'pending' | 'started' | 'finished';
  total_operations: number;
  finished_operations: number;
  errored_operations: number;
  submitted_at: string;
  completed_at: string;
  response_body_url: string;
  archive?: Buffer;
}

interface Reply {
  status: number;
  body?: unknown;
}

interface Operation {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

const MERGE_TYPES = new Set(['text', 'number', 'address', 'phone', 'date', 'url', 'imageurl', 'radio', 'dropdown', 'birthday', 'zip']);
const STATUSES = new Set<MemberStatus>(['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional', 'archived']);

export const md5Hash = (email: string) => createHash('md5').update(email.trim().toLowerCase(), 'utf8').digest('hex');
const mcTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');

function problem(status: number, title: string, detail: string): Reply {
  return { status, body: { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: randomBytes(8).toString('hex') } };
}
const notFound = () => problem(404, 'Resource Not Found', 'The requested resource could not be found.');

/** `fields=members.id,members.merge_fields.EVRISK,total_items` -> a tree of the paths to keep. */
type FieldTree = { [key: string]: FieldTree | true };
function fieldTree(fields: string): FieldTree {
  const tree: FieldTree = {};
  for (const path of fields.split(',').map((f) => f.trim()).filter(Boolean)) {
    let node = tree;
    const parts = path.split('.');
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = true;
      else {
        if (node[part] === true) return;
        node[part] = (node[part] as FieldTree | undefined) ?? {};
        node = node[part] as FieldTree;
      }
    });
  }
  return tree;
}
function project(value: unknown, tree: FieldTree): unknown {
  if (Array.isArray(value)) return value.map((v) => project(v, tree));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(tree)) {
    if (!(key in (value as object))) continue;
    const v = (value as Record<string, unknown>)[key];
    out[key] = sub === true ? v : project(v, sub);
  }
  return out;
}

export class FakeMailchimp {
  readonly requests: RecordedRequest[] = [];
  /** The audience operations called (by published name), and the requests refused for breaking their published description. */
  readonly publishedChecked = new Set<string>();
  readonly unpublished: { operation: string; problem: string }[] = [];
  readonly statusChanges: StatusChange[] = [];
  /** Tag calls (direct or in a batch), with their `is_syncing` flag. */
  readonly tagCalls: { listId: string; hash: string; isSyncing: boolean }[] = [];
  readonly permanentDeletes: string[] = [];
  /** Highest number of simultaneous requests seen per credential (including any refused with 429). */
  readonly peakConcurrent = new Map<string, number>();
  rejected429 = 0;
  /** Campaigns and their reports (fake-campaigns.ts): `campaigns.send(...)`. */
  readonly campaigns = new FakeCampaigns({
    ownsList: (credential, listId) => {
      const account = this.accounts.get(credential);
      return !!account && !!this.ownList(account, listId);
    },
    memberMergeFields: (listId, hash) => this.lists.get(listId)?.byHash.get(hash)?.merge_fields,
    clean: (listId, email, reason, campaignId) => {
      const list = this.list(listId);
      const member = list.byHash.get(md5Hash(email));
      // Mailchimp's own cleaning is no subscriber's, admin's or API call's doing: every webhook taking `cleaned` gets it.
      if (member) this.setStatus(list, member, 'cleaned', `campaign ${reason} bounce`, { reason, campaign_id: campaignId }, true);
    },
    hashOf: md5Hash,
  });
  batchOperationsRun = 0;
  archiveDownloads = 0;

  private server?: Server;
  private base = '';
  private readonly accounts = new Map<string, Account>();
  private readonly lists = new Map<string, FakeList>();
  private readonly batches = new Map<string, Batch>();
  private readonly inFlight = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly oauthClients = new Map<string, { secret: string; redirectUri: string }>();
  private readonly oauthCodes = new Map<string, string>();
  private faults: { count: number; status: number; hangMs?: number; match?: (method: string, path: string) => boolean }[] = [];
  private mergeIds = 1;
  private clock = Date.now();

  constructor(private readonly options: FakeMailchimpOptions = {}) {
    this.options = { ...options };
  }

  async start(): Promise<this> {
    this.server = createServer({ keepAliveTimeout: FAKE_KEEP_ALIVE_MS }, (req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    // Deliveries still on their way are dropped, as a test's hub is going too.
    this.closing.abort();
    await this.deliveriesSettled();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Where the connector's `apiBase` points. */
  get apiBase(): string {
    return `${this.base}/3.0`;
  }
  get loginBase(): string {
    return this.base;
  }

  // ------------------------------------------------------------------ set-up

  addAccount(credential: string, account: Partial<Account> = {}): void {
    this.accounts.set(credential, { dc: account.dc ?? 'us1', userId: account.userId ?? randomBytes(4).toString('hex'), accountName: account.accountName ?? 'Fake account' });
  }

  /** Revokes a key or token (disabled in the account, app disconnected): every call with it answers 401. */
  revoke(credential: string): void {
    this.accounts.delete(credential);
  }

  /** Lets another credential (an OAuth token, a second key) act for the same account. */
  alias(credential: string, existing: string): void {
    const account = this.accounts.get(existing);
    if (!account) throw new Error('unknown account');
    this.accounts.set(credential, account);
  }

  /** An audience of the account that owns `ownerCredential`; its name is `List <id>` unless given. */
  addList(ownerCredential: string, listId: string, name = `List ${listId}`): void {
    const account = this.accounts.get(ownerCredential);
    if (!account) throw new Error('unknown account');
    this.lists.set(listId, { id: listId, name, account, members: [], byHash: new Map(), mergeFields: [], segments: new Map(), tagNames: new Set(), webhooks: [] });
  }

  /** A webhook on the audience, as pasted in Mailchimp's app (every event and source ticked unless given); answers its id. */
  addWebhook(listId: string, url: string, settings: Partial<Pick<FakeWebhook, 'events' | 'sources'>> = {}): string {
    const list = this.list(listId);
    const id = this.webhookId(list);
    const all = <K extends string>(names: K[]) => Object.fromEntries(names.map((n) => [n, true])) as Record<K, boolean>;
    list.webhooks.push({ id, url, list_id: listId, events: settings.events ?? all(['subscribe', 'unsubscribe', 'profile', 'cleaned', 'upemail', 'campaign']), sources: settings.sources ?? all(['user', 'admin', 'api']), signing_enabled: false });
    return id;
  }

  /** Replaces the audience's webhooks by ones made before Mailchimp signed deliveries (unsigned, no secret). */
  replaceWebhooks(listId: string, hooks: { url: string; events?: FakeWebhook['events']; sources?: FakeWebhook['sources'] }[]): void {
    this.list(listId).webhooks.length = 0;
    for (const hook of hooks) this.addWebhook(listId, hook.url, hook);
  }

  webhooksOf(listId: string): string[] {
    return this.list(listId).webhooks.map((hook) => hook.url);
  }
  webhooks(listId: string): FakeWebhook[] {
    return this.list(listId).webhooks.map(listed);
  }
  /** A webhook's signing secret, as its creator got it once (tests forge and replay with it). */
  signingSecretOf(listId: string, url: string): string | undefined {
    return this.list(listId).webhooks.find((hook) => hook.url === url)?.signingSecret;
  }

  /** A change made in Mailchimp's app (source `admin`): a new address is subscribed, an existing member's merge fields are set. */
  changeAsAdmin(listId: string, email: string, merges: Record<string, string | number> = {}): void {
    this.changeAs('admin', listId, email, merges);
  }
  /** A subscriber signing up or updating their profile through a Mailchimp form (source `user`). */
  subscribeAsUser(listId: string, email: string, merges: Record<string, string | number> = {}): void {
    this.changeAs('user', listId, email, merges);
  }
  /** Every webhook delivery posted so far, with the hub's answer once it came (see `deliveriesSettled`). */
  readonly deliveries: Delivery[] = [];
  /** Resolves once every delivery posted so far has been answered. */
  async deliveriesSettled(): Promise<void> {
    while (this.posting.size > 0) await Promise.all([...this.posting]);
  }

  private source: ChangeSource = 'api';
  private readonly posting = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  private changeAs(source: ChangeSource, listId: string, email: string, merges: Record<string, string | number>): void {
    const list = this.list(listId);
    this.source = source;
    try {
      const existing = list.byHash.get(md5Hash(email));
      if (existing) this.applyMerge(list, existing, merges);
      else this.addNew(list, email, 'subscribed', merges);
    } finally {
      this.source = 'api';
    }
  }

  /** Posts `type` for a member to the list's webhooks that want that event from the current source. */
  private announce(list: FakeList, type: WebhookEvent, m: FakeMember, extra: Record<string, string> = {}, anySource = false): void {
    const source = this.source;
    for (const hook of list.webhooks) {
      if (!hook.events[type] || (!anySource && !hook.sources[source])) continue;
      const delivery: Delivery = { url: hook.url, type, source, email: m.email_address, status: -1 };
      this.deliveries.push(delivery);
      const sent = post(hook, deliveryForm(type, list.id, m.email_address, m.merge_fields, extra, this.now()), Date.now(), this.closing.signal).then((status) => {
        delivery.status = status;
        this.posting.delete(sent);
      });
      this.posting.add(sent);
    }
  }

  private webhookId(list: FakeList): string {
    return `wh${randomBytes(3).toString('hex')}${list.id}`;
  }

  addMembers(listId: string, members: { email: string; status?: MemberStatus; merge_fields?: Record<string, string | number>; tags?: string[]; lastChangedMs?: number }[]): void {
    const list = this.list(listId);
    for (const m of members) {
      const member: FakeMember = {
        id: md5Hash(m.email),
        email_address: m.email,
        status: m.status ?? 'subscribed',
        merge_fields: { FNAME: '', LNAME: '', ...(m.merge_fields ?? {}) },
        tags: [...(m.tags ?? [])],
        last_changed: mcTime(m.lastChangedMs ?? this.clock),
      };
      list.members.push(member);
      list.byHash.set(member.id, member);
      member.tags.forEach((t) => list.tagNames.add(t));
    }
  }

  addMergeField(listId: string, def: { tag: string; name: string; type: string }): void {
    this.list(listId).mergeFields.push({ merge_id: this.mergeIds++, ...def });
  }

  addSegment(listId: string, segmentId: string, emails: string[]): void {
    this.list(listId).segments.set(segmentId, emails.map(md5Hash));
  }

  registerOAuthClient(clientId: string, secret: string, redirectUri: string): void {
    this.oauthClients.set(clientId, { secret, redirectUri });
  }
  /**
   * The authorize page's user: `GET /oauth2/authorize` then redirects straight back to the client's
   * redirect URI with a fresh code for `accessToken` (as if the user clicked "Allow"), like the real page
   * after sign-in. Without it the page answers 404.
   */
  approveAuthorizationsWith(accessToken: string): void {
    this.approvingToken = accessToken;
  }
  private approvingToken: string | undefined;

  /** The code the authorize step would hand out, and the token it trades for. */
  issueCode(code: string, accessToken: string): void {
    this.oauthCodes.set(code, accessToken);
  }

  /** The next `count` matching API requests fail with `status` (problem+json). */
  failNext(count: number, status: number, match?: (method: string, path: string) => boolean): void {
    this.faults.push({ count, status, match });
  }

  /** The next `count` matching API requests answer only after `ms` (a client timeout shorter than that gives up). */
  hangNext(count: number, ms: number, match?: (method: string, path: string) => boolean): void {
    this.faults.push({ count, status: 0, hangMs: ms, match });
  }

  /**
   * Resolves once every request received so far has been answered: a hung one is recorded only when
   * it answers, so a test that hangs requests waits here before the next test counts requests.
   */
  async settled(): Promise<void> {
    while ([...this.inFlight.values()].some((running) => running > 0)) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Changes the per-request latency from now on. */
  setLatency(ms: number): void {
    this.options.latencyMs = ms;
  }

  /** Moves the fake's clock (member `last_changed` stamps) forward. */
  advanceClock(ms: number): void {
    this.clock += ms;
  }

  // ------------------------------------------------------------------ reading state

  member(listId: string, email: string): FakeMember | undefined {
    return this.list(listId).byHash.get(md5Hash(email));
  }
  members(listId: string): FakeMember[] {
    return this.list(listId).members;
  }
  mergeFields(listId: string): MergeFieldDef[] {
    return this.list(listId).mergeFields;
  }
  /** Calls by kind for one credential (or all). */
  stats(credential?: string): { read: number; write: number; poll: number } {
    const out = { read: 0, write: 0, poll: 0 };
    for (const r of this.requests) if (credential === undefined || r.credential === credential) out[r.kind]++;
    return out;
  }
  resetStats(): void {
    this.requests.length = 0;
    this.peakConcurrent.clear();
    this.rejected429 = 0;
    this.archiveDownloads = 0;
    this.tagCalls.length = 0;
  }

  private list(listId: string): FakeList {
    const list = this.lists.get(listId);
    if (!list) throw new Error(`no list ${listId}`);
    return list;
  }

  private now(): number {
    return Math.max(this.clock, Date.now());
  }

  // ------------------------------------------------------------------ HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.base);
    const method = (req.method ?? 'GET').toUpperCase();
    const send = (reply: Reply, type = 'application/json'): void => {
      const isProblem = reply.status >= 400 && type === 'application/json';
      res.statusCode = reply.status;
      // Mailchimp's id of the request, on every API answer.
      if (url.pathname.startsWith('/3.0/')) res.setHeader('x-request-id', randomUUID());
      if (reply.body === undefined) {
        res.end();
        return;
      }
      res.setHeader('content-type', isProblem ? 'application/problem+json; charset=utf-8' : type);
      res.end(Buffer.isBuffer(reply.body) ? reply.body : JSON.stringify(reply.body));
    };

    if (url.pathname.startsWith('/_archives/')) return send(this.archive(url.pathname), 'application/x-gzip');
    if (url.pathname === '/oauth2/authorize' && method === 'GET') {
      const reply = this.authorize(url.searchParams);
      if (reply.status !== 302) return send(reply);
      res.writeHead(302, { location: String(reply.body) }).end();
      return;
    }
    if (url.pathname === '/oauth2/token' && method === 'POST') return send(this.token(raw));
    if (url.pathname === '/oauth2/metadata' && method === 'GET') return send(this.metadata(req.headers.authorization));
    if (!url.pathname.startsWith('/3.0/')) return send(notFound());

    const credential = this.credentialOf(req.headers.authorization);
    const account = credential === undefined ? undefined : this.accounts.get(credential);
    if (!account || credential === undefined) {
      return send(problem(401, 'API Key Invalid', 'Your API key may be invalid, or you\'ve attempted to access the wrong datacenter.'));
    }
    const path = url.pathname.slice('/3.0'.length);
    const kind: RecordedRequest['kind'] = method !== 'GET' ? 'write' : /^\/batches\/[^/]+$/.test(path) ? 'poll' : 'read';
    const record = (status: number) => this.requests.push({ credential, method, path, kind, status });

    const running = (this.inFlight.get(credential) ?? 0) + 1;
    this.inFlight.set(credential, running);
    this.peakConcurrent.set(credential, Math.max(this.peakConcurrent.get(credential) ?? 0, running));
    try {
      if (running > (this.options.maxConnections ?? 10)) {
        this.rejected429++;
        record(429);
        return send(problem(429, 'Too Many Requests', `You have exceeded the limit of ${this.options.maxConnections ?? 10} simultaneous connections.`));
      }
      if (this.options.latencyMs) await new Promise((r) => setTimeout(r, this.options.latencyMs));
      const fault = this.faults.find((f) => f.count > 0 && (!f.match || f.match(method, path)));
      if (fault?.hangMs !== undefined) {
        fault.count--;
        await new Promise<void>((resolve) => this.later(fault.hangMs!, resolve));
      } else if (fault) {
        fault.count--;
        record(fault.status);
        return send(problem(fault.status, fault.status === 429 ? 'Too Many Requests' : 'Internal Server Error', 'Injected failure.'));
      }
      let body: unknown;
      if (raw.trim()) {
        try {
          body = JSON.parse(raw);
        } catch {
          record(400);
          return send(problem(400, 'JSON Parse Error', 'We encountered an unspecified JSON parsing error.'));
        }
      }
      const newHook = method === 'POST' ? /^\/lists\/([^/]+)\/webhooks\/?$/.exec(path) : null;
      const reply = newHook ? await this.createWebhook(account, newHook[1]!, body) : this.dispatch(account, credential, { method, path, query: url.searchParams, body });
      record(reply.status);
      const fields = url.searchParams.get('fields');
      if (fields && reply.status < 300 && reply.body) reply.body = project(reply.body, fieldTree(fields));
      send(reply);
    } finally {
      this.inFlight.set(credential, (this.inFlight.get(credential) ?? 1) - 1);
    }
  }

  private credentialOf(header: string | undefined): string | undefined {
    if (!header) return undefined;
    const [scheme, value] = header.split(' ');
    if (!value) return undefined;
    if (scheme?.toLowerCase() === 'bearer') return value;
    if (scheme?.toLowerCase() === 'basic') {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      return decoded.slice(decoded.indexOf(':') + 1);
    }
    return undefined;
  }

  private ownList(account: Account, listId: string): FakeList | undefined {
    const list = this.lists.get(listId);
    return list && list.account === account ? list : undefined;
  }

  /** Routes one operation (a direct request or a `/batches` operation) as `account`. */
  private dispatch(account: Account, credential: string, op: Operation): Reply {
    const checked = unpublishedOperation(op.method, op.path, op.query, op.body);
    if (checked) this.publishedChecked.add(checked.operation);
    if (checked?.problem) {
      this.unpublished.push({ operation: checked.operation, problem: checked.problem });
      return problem(400, 'Invalid Resource', `The resource submitted could not be validated: ${checked.problem}`);
    }
    const parts = op.path.replace(/^\/+/, '').replace(/\/+$/, '').split('/');
    const m = op.method;
    if (parts[0] === 'ping' && m === 'GET') return { status: 200, body: { health_status: "Everything's Chimpy!" } };
    if (parts[0] === 'batches') {
      if (parts.length === 1 && m === 'POST') return this.startBatch(account, credential, op.body);
      if (parts.length === 2 && m === 'GET') return this.batchStatus(credential, parts[1]!);
      return notFound();
    }
    if (parts[0] === 'campaigns' || parts[0] === 'reports') return this.campaigns.dispatch(credential, parts, m, op.query) ?? notFound();
    if (parts[0] === 'lists' && parts.length === 1 && m === 'GET') return this.listAudiences(account, op.query);
    if (parts[0] !== 'lists' || !parts[1]) return notFound();
    const list = this.ownList(account, parts[1]);
    if (!list) return notFound();
    const rest = parts.slice(2);
    if (rest.length === 0 && m === 'POST') return this.batchSubscribe(list, op.body);
    if (rest.length === 0 && m === 'GET') return { status: 200, body: { id: list.id, name: list.name, stats: { member_count: list.members.length } } };
    if (rest[0] === 'members') {
      if (rest.length === 1 && m === 'GET') return this.listMembers(list, op.query);
      const member = rest[1] ? list.byHash.get(rest[1]) : undefined;
      if (!member) return notFound();
      if (rest.length === 2 && m === 'GET') return { status: 200, body: this.memberJson(list, member) };
      if (rest.length === 2 && m === 'PATCH') return this.patchMember(list, member, op.body);
      if (rest.length === 2 && m === 'DELETE') {
        this.setStatus(list, member, 'archived', 'DELETE member');
        return { status: 204 };
      }
      if (rest[2] === 'tags' && rest.length === 3 && m === 'POST') return this.setTags(list, member, op.body);
      if (rest[2] === 'actions' && rest[3] === 'delete-permanent' && m === 'POST') {
        this.permanentDeletes.push(member.email_address);
        return { status: 204 };
      }
      return notFound();
    }
    if (rest[0] === 'webhooks') {
      if (rest.length === 1 && m === 'GET') return { status: 200, body: { webhooks: list.webhooks.map(listed), list_id: list.id, total_items: list.webhooks.length } };
      const index = list.webhooks.findIndex((hook) => hook.id === rest[1]);
      if (rest.length === 2 && m === 'DELETE' && index >= 0) {
        list.webhooks.splice(index, 1);
        return { status: 204 };
      }
      return notFound();
    }
    if (rest[0] === 'merge-fields' && rest.length === 1) {
      if (m === 'GET') return this.listMergeFields(list, op.query);
      if (m === 'POST') return this.createMergeField(list, op.body);
    }
    if (rest[0] === 'segments' && rest[1] && rest[2] === 'members' && rest.length === 3 && m === 'GET') return this.segmentMembers(list, rest[1], op.query);
    return notFound();
  }

  /** POST /lists/{id}/webhooks: Mailchimp GETs the URL first, so this one answers asynchronously. */
  private async createWebhook(account: Account, listId: string, body: unknown): Promise<Reply> {
    const list = this.ownList(account, listId);
    if (!list) return notFound();
    const hook = await webhookFromBody(list.id, body, this.webhookId(list));
    if ('body' in hook) return hook;
    list.webhooks.push(hook);
    // The signing secret is in this answer only.
    return { status: 200, body: { ...listed(hook), signing_secret: hook.signingSecret } };
  }

  /** GET /lists: the account's audiences; `member_count` counts subscribed members, as Mailchimp's does. */
  private listAudiences(account: Account, query: URLSearchParams): Reply {
    const paging = this.paging(query);
    if ('status' in paging) return paging;
    const own = [...this.lists.values()].filter((list) => list.account === account);
    const lists = own.slice(paging.offset, paging.offset + paging.count).map((list) => ({ id: list.id, name: list.name, stats: { member_count: list.members.filter((x) => x.status === 'subscribed').length } }));
    return { status: 200, body: { lists, total_items: own.length } };
  }

  private paging(query: URLSearchParams): { count: number; offset: number } | Reply {
    const count = query.has('count') ? Number(query.get('count')) : 10;
    const offset = query.has('offset') ? Number(query.get('offset')) : 0;
    if (!Number.isInteger(count) || count < 1 || count > 1000) return problem(400, 'Invalid Resource', 'The count parameter must be an integer between 1 and 1000.');
    if (!Number.isInteger(offset) || offset < 0) return problem(400, 'Invalid Resource', 'The offset parameter must be a non-negative integer.');
    return { count, offset };
  }

  private memberJson(list: FakeList, m: FakeMember, withTags = true): Record<string, unknown> {
    const json: Record<string, unknown> = {
      id: m.id,
      email_address: m.email_address,
      unique_email_id: m.id.slice(0, 10),
      status: m.status,
      merge_fields: { ...m.merge_fields },
      last_changed: m.last_changed,
      list_id: list.id,
    };
    if (withTags) {
      json.tags_count = m.tags.length;
      json.tags = m.tags.map((name) => ({ id: Number.parseInt(md5Hash(name).slice(0, 6), 16), name }));
    }
    return json;
  }

  private listMembers(list: FakeList, query: URLSearchParams): Reply {
    const paging = this.paging(query);
    if ('status' in paging) return paging;
    let members = list.members;
    const status = query.get('status');
    if (status) {
      if (!STATUSES.has(status as MemberStatus)) return problem(400, 'Invalid Resource', `The status parameter is invalid: ${status}`);
      members = members.filter((x) => x.status === status);
    }
    const since = query.get('since_last_changed');
    if (since) {
      const t = Date.parse(since);
      if (Number.isNaN(t)) return problem(400, 'Invalid Resource', 'since_last_changed must be an ISO 8601 time.');
      members = members.filter((x) => Date.parse(x.last_changed) > t);
    }
    return {
      status: 200,
      body: { members: members.slice(paging.offset, paging.offset + paging.count).map((x) => this.memberJson(list, x)), list_id: list.id, total_items: members.length },
    };
  }

  private segmentMembers(list: FakeList, segmentId: string, query: URLSearchParams): Reply {
    const hashes = list.segments.get(segmentId);
    if (!hashes) return notFound();
    const paging = this.paging(query);
    if ('status' in paging) return paging;
    const cleaned = query.get('include_cleaned') === 'true';
    const unsubscribed = query.get('include_unsubscribed') === 'true';
    const members = hashes
      .map((h) => list.byHash.get(h))
      .filter((x): x is FakeMember => !!x && x.status !== 'archived' && (x.status !== 'cleaned' || cleaned) && (x.status !== 'unsubscribed' || unsubscribed));
    // Segment members carry no tags (the real schema has none).
    return { status: 200, body: { members: members.slice(paging.offset, paging.offset + paging.count).map((x) => this.memberJson(list, x, false)), total_items: members.length } };
  }

  private touch(m: FakeMember) {
    m.last_changed = mcTime(this.now());
  }

  private setStatus(list: FakeList, m: FakeMember, to: MemberStatus, via: string, cleaned: Record<string, string> = { reason: 'hard' }, byMailchimp = false) {
    if (m.status === to) return;
    this.statusChanges.push({ listId: list.id, email: m.email_address, from: m.status, to, via });
    m.status = to;
    this.touch(m);
    if (to === 'subscribed') this.announce(list, 'subscribe', m);
    else if (to === 'unsubscribed') this.announce(list, 'unsubscribe', m, { action: 'unsub' });
    else if (to === 'archived') this.announce(list, 'unsubscribe', m, { action: 'archive' });
    else if (to === 'cleaned') this.announce(list, 'cleaned', m, cleaned, byMailchimp);
  }

  /** Validates merge values against the field types; unknown tags are ignored, as Mailchimp does. */
  private mergeError(list: FakeList, values: unknown): string | undefined {
    if (values === undefined) return undefined;
    if (!values || typeof values !== 'object' || Array.isArray(values)) return 'merge_fields must be an object';
    for (const [tag, value] of Object.entries(values)) {
      const def = list.mergeFields.find((f) => f.tag === tag);
      if (def?.type === 'number' && value !== '' && !Number.isFinite(Number(value))) return `Your merge fields were invalid: ${tag} must be a number`;
      if (def?.type === 'text' && typeof value !== 'string') return `Your merge fields were invalid: ${tag} must be text`;
    }
    return undefined;
  }

  private applyMerge(list: FakeList, m: FakeMember, values: Record<string, string | number> | undefined, announce = true) {
    if (!values) return;
    let changed = false;
    for (const [tag, value] of Object.entries(values)) {
      const def = list.mergeFields.find((f) => f.tag === tag);
      if (!def) continue;
      const stored = def.type === 'number' ? (value === '' ? '' : Number(value)) : String(value);
      if (m.merge_fields[tag] !== stored) {
        m.merge_fields[tag] = stored;
        changed = true;
      }
    }
    if (changed) this.touch(m);
    if (changed && announce) this.announce(list, 'profile', m);
  }

  private batchSubscribe(list: FakeList, body: unknown): Reply {
    const b = body as { members?: unknown; update_existing?: unknown } | undefined;
    if (!b || !Array.isArray(b.members)) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated: members is required.');
    if (b.members.length > 500) return problem(400, 'Invalid Resource', `You can only add or update up to 500 members per batch (got ${b.members.length}).`);
    const result = { new_members: [] as unknown[], updated_members: [] as unknown[], errors: [] as unknown[], total_created: 0, total_updated: 0, error_count: 0 };
    for (const item of b.members as Record<string, unknown>[]) {
      const email = typeof item.email_address === 'string' ? item.email_address : '';
      const error = (text: string, code = 'ERROR_GENERIC') => result.errors.push({ email_address: email, error: text, error_code: code });
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) {
        error(`${email || 'email_address'} looks fake or invalid, please enter a real email address.`, 'ERROR_FAKE_EMAIL');
        continue;
      }
      const status = item.status as MemberStatus | undefined;
      const statusIfNew = item.status_if_new as MemberStatus | undefined;
      if (!status && !statusIfNew) {
        error('Status is required: send status or status_if_new.');
        continue;
      }
      if ((status && !STATUSES.has(status)) || (statusIfNew && !STATUSES.has(statusIfNew))) {
        error('The status given is invalid.');
        continue;
      }
      const mergeError = this.mergeError(list, item.merge_fields);
      if (mergeError) {
        error(mergeError);
        continue;
      }
      const existing = list.byHash.get(md5Hash(email));
      if (existing) {
        if (b.update_existing !== true) {
          error(`${email} is already a list member. Use PUT to insert or update list members.`, 'ERROR_CONTACT_EXISTS');
          continue;
        }
        if (status) this.setStatus(list, existing, status, 'batch subscribe status');
        this.applyMerge(list, existing, item.merge_fields as Record<string, string | number> | undefined);
        result.updated_members.push(this.memberJson(list, existing));
      } else {
        const created = this.addNew(list, email, (status ?? statusIfNew)!, item.merge_fields as Record<string, string | number> | undefined);
        result.new_members.push(this.memberJson(list, created));
      }
    }
    result.total_created = result.new_members.length;
    result.total_updated = result.updated_members.length;
    result.error_count = result.errors.length;
    return { status: 200, body: result };
  }

  /** A new member, announced as `subscribe` when subscribed. */
  private addNew(list: FakeList, email: string, status: MemberStatus, merges: Record<string, string | number> | undefined): FakeMember {
    this.addMembers(list.id, [{ email, status, lastChangedMs: this.now() }]);
    const created = list.byHash.get(md5Hash(email))!;
    this.applyMerge(list, created, merges, false);
    if (status === 'subscribed') this.announce(list, 'subscribe', created);
    return created;
  }

  private patchMember(list: FakeList, m: FakeMember, body: unknown): Reply {
    const b = (body ?? {}) as { status?: MemberStatus; merge_fields?: Record<string, string | number> };
    if (b.status && !STATUSES.has(b.status)) return problem(400, 'Invalid Resource', 'The status given is invalid.');
    const mergeError = this.mergeError(list, b.merge_fields);
    if (mergeError) return problem(400, 'Invalid Resource', mergeError);
    if (b.status) this.setStatus(list, m, b.status, 'PATCH member');
    this.applyMerge(list, m, b.merge_fields);
    return { status: 200, body: this.memberJson(list, m) };
  }

  private setTags(list: FakeList, m: FakeMember, body: unknown): Reply {
    const b = body as { tags?: unknown; is_syncing?: unknown } | undefined;
    if (!b || !Array.isArray(b.tags)) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated: tags is required.');
    for (const t of b.tags as { name?: unknown; status?: unknown }[]) {
      if (typeof t?.name !== 'string' || !t.name.trim() || (t.status !== 'active' && t.status !== 'inactive')) {
        return problem(400, 'Invalid Resource', 'Each tag needs a name and a status of active or inactive.');
      }
    }
    this.tagCalls.push({ listId: list.id, hash: m.id, isSyncing: b.is_syncing === true });
    const before = m.tags.join('\n');
    for (const t of b.tags as { name: string; status: string }[]) {
      const has = m.tags.includes(t.name);
      if (t.status === 'active' && !has) {
        m.tags.push(t.name);
        list.tagNames.add(t.name); // a tag is created the first time it is applied
      }
      if (t.status === 'inactive' && has) m.tags = m.tags.filter((x) => x !== t.name);
    }
    if (m.tags.join('\n') !== before) this.announce(list, 'profile', m);
    return { status: 204 };
  }

  private listMergeFields(list: FakeList, query: URLSearchParams): Reply {
    const paging = this.paging(query);
    if ('status' in paging) return paging;
    return { status: 200, body: { merge_fields: list.mergeFields.slice(paging.offset, paging.offset + paging.count), list_id: list.id, total_items: list.mergeFields.length } };
  }

  private createMergeField(list: FakeList, body: unknown): Reply {
    const b = (body ?? {}) as { tag?: unknown; name?: unknown; type?: unknown };
    if (typeof b.name !== 'string' || !b.name.trim()) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated: name is required.');
    if (typeof b.type !== 'string' || !MERGE_TYPES.has(b.type)) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated: type is invalid.');
    if (typeof b.tag !== 'string' || !/^[A-Z0-9_]{1,10}$/.test(b.tag)) return problem(400, 'Invalid Resource', 'The merge tag must be 1-10 upper-case letters, digits or underscores.');
    if (list.mergeFields.some((f) => f.tag === b.tag)) return problem(400, 'Invalid Resource', `A Merge Field with the tag "${b.tag}" already exists for this list.`);
    if (list.mergeFields.length >= (this.options.mergeFieldLimit ?? 80)) return problem(400, 'Invalid Resource', `This list already has the maximum of ${this.options.mergeFieldLimit ?? 80} merge fields.`);
    const def = { merge_id: this.mergeIds++, tag: b.tag, name: b.name, type: b.type };
    list.mergeFields.push(def);
    return { status: 200, body: def };
  }

  // ------------------------------------------------------------------ /batches

  private later(ms: number, fn: () => void) {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private batchJson(b: Batch) {
    const { archive: _archive, credential: _credential, ...json } = b;
    return json;
  }

  private startBatch(account: Account, credential: string, body: unknown): Reply {
    const ops = (body as { operations?: unknown } | undefined)?.operations;
    if (!Array.isArray(ops) || ops.length === 0) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated: operations is required.');
    for (const op of ops as Record<string, unknown>[]) {
      if (typeof op?.method !== 'string' || typeof op.path !== 'string') return problem(400, 'Invalid Resource', 'Each operation needs a method and a path.');
      if (op.body !== undefined && typeof op.body !== 'string') return problem(400, 'Invalid Resource', 'An operation body must be a JSON string.');
    }
    const batch: Batch = {
      id: randomBytes(5).toString('hex'),
      credential,
      status: 'pending',
      total_operations: ops.length,
      finished_operations: 0,
      errored_operations: 0,
      submitted_at: mcTime(Date.now()),
      completed_at: '',
      response_body_url: '',
    };
    this.batches.set(batch.id, batch);
    this.later(this.options.batchStartDelayMs ?? 5, () => void this.runBatch(account, batch, ops as Record<string, unknown>[]));
    return { status: 200, body: this.batchJson(batch) };
  }

  private async runBatch(account: Account, batch: Batch, ops: Record<string, unknown>[]) {
    batch.status = 'started';
    const results: { status_code: number; operation_id: string | null; response: string }[] = [];
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      let reply: Reply;
      try {
        const parsed = op.body === undefined ? undefined : JSON.parse(op.body as string);
        const query = new URLSearchParams((op.params as Record<string, string> | undefined) ?? {});
        reply = this.dispatch(account, batch.credential, { method: String(op.method).toUpperCase(), path: String(op.path), query, body: parsed });
      } catch {
        reply = problem(400, 'JSON Parse Error', 'The operation body is not valid JSON.');
      }
      this.batchOperationsRun++;
      batch.finished_operations++;
      if (reply.status >= 400) batch.errored_operations++;
      results.push({ status_code: reply.status, operation_id: typeof op.operation_id === 'string' ? op.operation_id : null, response: reply.body === undefined ? '' : JSON.stringify(reply.body) });
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
    const tar = pack();
    for (let i = 0; i < results.length; i += 1000) tar.entry({ name: `${batch.id}/${i / 1000}.json` }, JSON.stringify(results.slice(i, i + 1000)));
    tar.finalize();
    const parts: Buffer[] = [];
    for await (const c of tar) parts.push(c as Buffer);
    this.later(this.options.batchFinishDelayMs ?? 5, () => {
      batch.archive = gzipSync(Buffer.concat(parts));
      batch.response_body_url = `${this.base}/_archives/${batch.id}.tar.gz`;
      batch.completed_at = mcTime(Date.now());
      batch.status = 'finished';
    });
  }

  private batchStatus(credential: string, id: string): Reply {
    const batch = this.batches.get(id);
    if (!batch || batch.credential !== credential) return notFound();
    return { status: 200, body: this.batchJson(batch) };
  }

  private archive(pathname: string): Reply {
    const id = pathname.slice('/_archives/'.length).replace(/\.tar\.gz$/, '');
    const batch = this.batches.get(id);
    if (!batch?.archive) return { status: 404, body: Buffer.from('NoSuchKey') };
    this.archiveDownloads++;
    return { status: 200, body: batch.archive };
  }

  // ------------------------------------------------------------------ OAuth

  private authorize(query: URLSearchParams): Reply {
    const client = this.oauthClients.get(query.get('client_id') ?? '');
    if (query.get('response_type') !== 'code' || !client || client.redirectUri !== query.get('redirect_uri')) return { status: 400, body: { error: 'invalid_request' } };
    if (!this.approvingToken) return notFound();
    const code = randomBytes(12).toString('hex');
    this.oauthCodes.set(code, this.approvingToken);
    const back = new URL(client.redirectUri);
    back.searchParams.set('code', code);
    if (query.has('state')) back.searchParams.set('state', query.get('state')!);
    return { status: 302, body: back.toString() };
  }

  private token(raw: string): Reply {
    const form = new URLSearchParams(raw);
    const client = this.oauthClients.get(form.get('client_id') ?? '');
    if (form.get('grant_type') !== 'authorization_code') return { status: 400, body: { error: 'unsupported_grant_type' } };
    if (!client || client.secret !== form.get('client_secret')) return { status: 401, body: { error: 'invalid_client' } };
    if (client.redirectUri !== form.get('redirect_uri')) return { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri does not match' } };
    const token = this.oauthCodes.get(form.get('code') ?? '');
    if (!token) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid authorization code' } };
    this.oauthCodes.delete(form.get('code')!);
    return { status: 200, body: { access_token: token, expires_in: 0, scope: null } };
  }

  private metadata(header: string | undefined): Reply {
    const token = header?.startsWith('OAuth ') ? header.slice('OAuth '.length) : undefined;
    const account = token ? this.accounts.get(token) : undefined;
    if (!account) return { status: 401, body: { error: 'invalid_token' } };
    return {
      status: 200,
      body: { dc: account.dc, role: 'owner', accountname: account.accountName, user_id: Number.parseInt(account.userId, 16), login: { login_email: 'owner@example.com' }, login_url: 'https://login.mailchimp.com', api_endpoint: this.base },
    };
  }
}
