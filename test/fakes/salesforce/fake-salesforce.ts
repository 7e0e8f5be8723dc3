import { createHash, createPublicKey, generateKeyPairSync, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerMetadata, soapFault, soapSession, type CustomFieldDefinition, type FieldPermission } from './fake-metadata';
import { parseSoql, type FakeRecord } from './fake-soql';
import { FakeBulk } from './fake-bulk';
import { FakeChangeEventSelection } from './fake-change-events';

/**
 * A fake Salesforce org on loopback, behaving as Salesforce documents what the connector relies on:
 * the OAuth token endpoint (web-server flow with its PKCE check, refresh tokens, `invalid_grant` once
 * revoked, the JWT bearer flow with an RS256 assertion), REST query (2,000 a batch, `nextRecordsUrl`,
 * `INVALID_QUERY_LOCATOR` once expired), Bulk API 2.0 query and ingest jobs (fake-bulk.ts), sObject
 * Collections (200 a call, one result per record, per-record errors), `Sforce-Limit-Info` on every
 * answer and `/limits`, `REQUEST_LIMIT_EXCEEDED` (403) past the daily allocation, `INVALID_SESSION_ID`
 * (401) for an expired session, and the Metadata API over SOAP (fake-metadata.ts). Fields created
 * through the Metadata API have no field-level security: until a permission set granting them is
 * assigned to the user, queries, describes and writes do not see them (the classic failure).
 * `Organization` answers the org's edition (`OrganizationType`, Enterprise by default) and the Tooling
 * API its Change Data Capture selection (fake-change-events.ts).
 * It records every call, every write per record and any change to consent (HasOptedOutOfEmail).
 */

export type SObjectType = 'Contact' | 'Lead' | 'Account';
export interface RecordedCall {
  method: string;
  path: string;
}
interface Trouble {
  path: RegExp;
  status: number;
  errorCode: string;
  count: number;
}

const PREFIX: Record<SObjectType, string> = { Contact: '003', Lead: '00Q', Account: '001' };
/** The fields every Contact and Lead has, visible to any API user. */
const STANDARD_FIELDS: Record<SObjectType, string[]> = {
  Contact: ['Id', 'Email', 'FirstName', 'LastName', 'LeadSource', 'SystemModstamp', 'HasOptedOutOfEmail', 'AccountId'],
  Lead: ['Id', 'Email', 'FirstName', 'LastName', 'LeadSource', 'Status', 'IsConverted', 'SystemModstamp', 'HasOptedOutOfEmail'],
  Account: ['Id', 'Name', 'PersonEmail', 'SystemModstamp', 'PersonHasOptedOutOfEmail'],
};
const CONSENT_FIELDS = new Set(['HasOptedOutOfEmail', 'PersonHasOptedOutOfEmail']);
export const QUERY_BATCH = 2_000;
export const COLLECTION_MAX = 200;

let keys: { privateKey: string; publicKey: KeyObject } | undefined;

/**
 * The connected app's certificate key pair, made once per process: a 2,048-bit RSA key took 0.1-0.4 s of
 * CPU, and each fake made its own (five suites make several). One key for every fake changes nothing a
 * test checks: a token signed with any other key is refused all the same.
 */
function connectedAppKeys(): { privateKey: string; publicKey: KeyObject } {
  if (!keys) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    keys = { privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey: createPublicKey(pair.publicKey.export({ type: 'spki', format: 'pem' })) };
  }
  return keys;
}

/** Salesforce's DateTime as its REST API answers it. */
export const sfTime = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');

export class FakeSalesforce {
  readonly orgId = '00D5g00000FAKEORG';
  readonly userId = '0055g00000FAKEUSR';
  readonly clientId = 'fake-consumer-key';
  readonly clientSecret = `secret-${randomBytes(8).toString('hex')}`;
  readonly jwtUser = 'integration@example.com';
  /** The External Client App's certificate key pair: the hub signs JWT assertions with the private key. */
  readonly jwtPrivateKey: string;
  private readonly jwtPublicKey: KeyObject;
  url = '';
  readonly calls: RecordedCall[] = [];
  readonly metadataCalls: { method: string; names: string[] }[] = [];
  /** Every record, by id (Contacts 003, Leads 00Q, Accounts 001). */
  readonly records = new Map<string, FakeRecord & { type: SObjectType }>();
  /** How many times each record was written (through Collections or Bulk), by the record shown to the hub (a person account's contact). */
  readonly writesPerRecord = new Map<string, number>();
  /** Every write that touched a consent field: none may happen unless the user chose that clean action. */
  readonly consentChanges: { id: string; field: string; value: unknown }[] = [];
  readonly customFields = new Map<string, CustomFieldDefinition>();
  readonly permissionSets = new Map<string, { id: string; label: string; fieldPermissions: FieldPermission[] }>();
  /** Permission set names assigned to the API user. */
  readonly assignments = new Set<string>();
  readonly listViews = new Map<string, { object: SObjectType; query: string }>();
  /** The REST API versions the calls named. */
  readonly versions = new Set<string>();
  apiLimit = 100_000;
  apiUsed = 0;
  personAccounts = false;
  /** Sizes of each sObject Collections call. */
  readonly collectionSizes: number[] = [];
  readonly bulk: FakeBulk;
  /** `Organization.OrganizationType`: 'Professional Edition' has no Change Data Capture. */
  organizationType = 'Enterprise Edition';
  isSandbox = false;
  /** The entities selected for Change Data Capture (Tooling API PlatformEventChannelMember). */
  readonly changeEvents = new FakeChangeEventSelection(() => this.organizationType);
  private readonly accessTokens = new Set<string>();
  private readonly refreshTokens = new Map<string, { revoked: boolean }>();
  private readonly codes = new Map<string, { challenge?: string; redirectUri: string }>();
  private readonly cursors = new Map<string, { rows: Record<string, unknown>[]; expired: boolean }>();
  private readonly troubles: Trouble[] = [];
  private readonly recordTroubles = new Map<string, string>();
  private server?: Server;
  private serial = 1;
  /** Records are made an hour in the past (a millisecond apart); changes and writes are stamped now. */
  private clock = Date.now() - 3_600_000;

  constructor() {
    const { privateKey, publicKey } = connectedAppKeys();
    this.jwtPrivateKey = privateKey;
    this.jwtPublicKey = publicKey;
    this.bulk = new FakeBulk(this);
  }

  // ------------------------------------------------------------------ records

  newId(prefix: string): string {
    return `${prefix}5g${String(this.serial++).padStart(13, '0')}`.slice(0, 18);
  }

  /** A strictly increasing SystemModstamp: `now` for a change made now, else the next millisecond of the past. */
  tick(now = false): string {
    this.clock = now ? Math.max(this.clock + 1, Date.now()) : this.clock + 1;
    return sfTime(this.clock);
  }

  add(type: 'Contact' | 'Lead', email: string | null, fields: Record<string, unknown> = {}): FakeRecord {
    const record = { Id: this.newId(PREFIX[type]), type, Email: email, LastName: 'Person', HasOptedOutOfEmail: false, SystemModstamp: this.tick(), ...(type === 'Lead' ? { IsConverted: false, Status: 'Open' } : {}), ...fields } as FakeRecord & { type: SObjectType };
    this.records.set(record.Id, record);
    return record;
  }

  /** A Person Account: an Account and its person Contact (IsPersonAccount), the contact's fields shown on the Account as __pc. */
  addPersonAccount(email: string): FakeRecord {
    const account = { Id: this.newId('001'), type: 'Account' as const, Name: 'Person Account', PersonEmail: email, SystemModstamp: this.tick() };
    this.records.set(account.Id, account);
    return this.add('Contact', email, { IsPersonAccount: true, AccountId: account.Id });
  }

  /** A change made in Salesforce by someone else: SystemModstamp moves. */
  change(id: string, fields: Record<string, unknown>): void {
    Object.assign(this.records.get(id)!, fields, { SystemModstamp: this.tick(true) });
  }

  ofType(type: SObjectType): (FakeRecord & { type: SObjectType })[] {
    return [...this.records.values()].filter((r) => r.type === type);
  }

  // ------------------------------------------------------------------ scripted trouble

  /** The next `count` calls whose path matches answer `status` with Salesforce's error body. */
  failNext(path: RegExp, status: number, errorCode: string, count = 1): void {
    this.troubles.push({ path, status, errorCode, count });
  }

  /** The next write of this record is refused with this status code (a per-record error). */
  failRecordOnce(id: string, statusCode: string): void {
    this.recordTroubles.set(id, statusCode);
  }

  /** Every access token stops working (an expired session): calls answer 401 INVALID_SESSION_ID until refreshed. */
  expireSessions(): void {
    this.accessTokens.clear();
  }

  /** An admin revoked the app's access: refresh tokens answer invalid_grant, sessions end, JWT sign-ins are refused. */
  revokeAccess(): void {
    for (const token of this.refreshTokens.values()) token.revoked = true;
    this.accessTokens.clear();
    this.jwtRevoked = true;
  }
  private jwtRevoked = false;

  expireQueryLocators(): void {
    for (const cursor of this.cursors.values()) cursor.expired = true;
  }

  callsTo(path: RegExp, method?: string): RecordedCall[] {
    return this.calls.filter((c) => path.test(c.path) && (!method || c.method === method));
  }

  /** API calls counted against the daily allocation (REST, Bulk and SOAP; not OAuth). */
  get apiCalls(): number {
    return this.calls.filter((c) => c.path.startsWith('/services/data/') || c.path.startsWith('/services/Soap/')).length;
  }

  // ------------------------------------------------------------------ sign-in helpers for tests

  /** What Salesforce does when the admin approves the consent page: a code for the redirect URI (its PKCE challenge kept). */
  approve(authorizeUrl: string): string {
    const url = new URL(authorizeUrl);
    if (url.searchParams.get('client_id') !== this.clientId) throw new Error(`unknown client_id ${url.searchParams.get('client_id')}`);
    const code = `code-${randomBytes(8).toString('hex')}`;
    const challenge = url.searchParams.get('code_challenge') ?? undefined;
    this.codes.set(code, { redirectUri: url.searchParams.get('redirect_uri')!, ...(challenge ? { challenge } : {}) });
    const back = new URL(url.searchParams.get('redirect_uri')!);
    back.searchParams.set('code', code);
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    return back.toString();
  }

  /** A connection's tokens as the web-server flow would give them (for tests that start connected). */
  issueTokens(): { accessToken: string; refreshToken: string } {
    const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
    this.refreshTokens.set(refreshToken, { revoked: false });
    return { accessToken: this.newAccessToken(), refreshToken };
  }

  /** The settings a connection to this org carries. */
  connectionSettings(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { orgId: this.orgId, userId: this.userId, instanceUrl: this.url, loginUrl: this.url, apiVersion: '62.0', auth: 'oauth', ...extra };
  }

  /** Field-level security: a custom field is visible when it exists and an assigned permission set grants reading it. */
  visibleFields(type: SObjectType): Set<string> {
    const visible = new Set(STANDARD_FIELDS[type]);
    if (type === 'Contact' && this.personAccounts) visible.add('IsPersonAccount');
    const granted = new Set([...this.assignments].flatMap((name) => this.permissionSets.get(name)?.fieldPermissions.filter((p) => p.readable).map((p) => p.field) ?? []));
    const customOf = (object: string) => [...this.customFields.keys()].filter((f) => f.startsWith(`${object}.`) && granted.has(f)).map((f) => f.slice(object.length + 1));
    if (type === 'Account') {
      if (this.personAccounts) for (const name of customOf('Contact')) visible.add(name.replace(/__c$/, '__pc'));
    } else for (const name of customOf(type)) visible.add(name);
    return visible;
  }

  // ------------------------------------------------------------------ server

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    // Longer than any pause between a client's calls on a loaded machine: an idle socket closed just as it
    // is reused would be a reset the test did not ask for.
    this.server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    this.calls.push({ method, path: url.pathname });
    try {
      if (url.pathname.startsWith('/services/oauth2/')) return this.oauth(url.pathname, body, res);
      if (url.pathname.startsWith('/services/Soap/m/')) return this.soap(body, res);
      if (!url.pathname.startsWith('/services/data/')) return this.json(res, 404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
      const version = /^\/services\/data\/v(\d+\.\d)\//.exec(url.pathname)?.[1];
      if (!version) return this.json(res, 404, [{ errorCode: 'NOT_FOUND', message: 'no API version in the path' }]);
      this.versions.add(version);
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !this.accessTokens.has(token)) return this.json(res, 401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
      if (this.apiUsed >= this.apiLimit) return this.json(res, 403, [{ message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' }]);
      this.apiUsed++;
      const trouble = this.troubles.find((t) => t.count > 0 && t.path.test(url.pathname));
      if (trouble) {
        trouble.count--;
        return this.json(res, trouble.status, [{ message: `scripted ${trouble.errorCode}`, errorCode: trouble.errorCode }]);
      }
      const rest = url.pathname.slice(`/services/data/v${version}`.length);
      return await this.rest(method, rest, url, body, req, res);
    } catch (error) {
      this.json(res, 500, [{ errorCode: 'UNKNOWN_EXCEPTION', message: String((error as Error).message) }]);
    }
  }

  private limitHeader(): Record<string, string> {
    return { 'Sforce-Limit-Info': `api-usage=${this.apiUsed}/${this.apiLimit}` };
  }

  json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...this.limitHeader(), ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  csv(res: ServerResponse, text: string, headers: Record<string, string> = {}): void {
    res.writeHead(200, { 'content-type': 'text/csv', ...this.limitHeader(), ...headers });
    res.end(text);
  }

  private newAccessToken(): string {
    // Opaque, like Salesforce's session ids (jsforce refuses JWT-shaped tokens for SOAP).
    const token = `00D!${randomBytes(16).toString('hex')}`;
    this.accessTokens.add(token);
    return token;
  }

  private tokenAnswer(refreshToken?: string) {
    return {
      access_token: this.newAccessToken(),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      instance_url: this.url,
      id: `${this.url}/id/${this.orgId}/${this.userId}`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
      signature: randomBytes(16).toString('base64'),
      scope: 'api refresh_token',
    };
  }

  private oauth(path: string, body: string, res: ServerResponse): void {
    const form = new URLSearchParams(body);
    const refuse = (description: string) => this.json(res, 400, { error: 'invalid_grant', error_description: description });
    if (path === '/services/oauth2/revoke') {
      const token = this.refreshTokens.get(form.get('token') ?? '');
      if (token) token.revoked = true;
      return this.json(res, token ? 200 : 400, token ? undefined : { error: 'unsupported_token_type', error_description: 'this token is invalid' });
    }
    if (path !== '/services/oauth2/token') return this.json(res, 404, { error: 'not_found' });
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) return this.json(res, 400, { error: 'invalid_client', error_description: 'invalid client credentials' });
      if (!code || code.redirectUri !== form.get('redirect_uri')) return refuse('invalid authorization code');
      const verifier = form.get('code_verifier');
      if (code.challenge && (!verifier || createHash('sha256').update(verifier).digest('base64url') !== code.challenge)) return refuse('invalid code verifier');
      const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
      this.refreshTokens.set(refreshToken, { revoked: false });
      return this.json(res, 200, this.tokenAnswer(refreshToken));
    }
    if (grant === 'refresh_token') {
      if (form.get('client_id') !== this.clientId) return this.json(res, 400, { error: 'invalid_client_id', error_description: 'client identifier invalid' });
      const token = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!token || token.revoked) return refuse('expired access/refresh token');
      return this.json(res, 200, this.tokenAnswer());
    }
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
      if (!header || !claims || !signature || !verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), this.jwtPublicKey, Buffer.from(signature, 'base64url'))) return refuse('invalid assertion');
      const c = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { iss?: string; sub?: string; aud?: string; exp?: number };
      if (c.iss !== this.clientId) return this.json(res, 400, { error: 'invalid_client_id', error_description: 'client identifier invalid' });
      if (c.aud !== this.url) return refuse('audience is invalid');
      if (!c.exp || c.exp * 1000 < Date.now() || c.exp * 1000 > Date.now() + 300_000) return refuse('expired or too long-lived assertion');
      if (c.sub !== this.jwtUser || this.jwtRevoked) return refuse("user hasn't approved this consumer");
      return this.json(res, 200, this.tokenAnswer());
    }
    return this.json(res, 400, { error: 'unsupported_grant_type', error_description: 'grant type not supported' });
  }

  private soap(body: string, res: ServerResponse): void {
    const send = (status: number, xml: string) => {
      res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8' });
      res.end(xml);
    };
    const session = soapSession(body);
    if (!session || !this.accessTokens.has(session)) return send(500, soapFault('INVALID_SESSION_ID', 'Invalid Session ID found in SessionHeader: Illegal Session'));
    if (this.apiUsed >= this.apiLimit) return send(500, soapFault('REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.'));
    this.apiUsed++;
    const xml = answerMetadata(body, { customFields: this.customFields, permissionSets: this.permissionSets, newId: (p) => this.newId(p) }, this.metadataCalls);
    send(xml.includes('<soapenv:Fault>') ? 500 : 200, xml);
  }

  // ------------------------------------------------------------------ REST

  private async rest(method: string, path: string, url: URL, body: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (method === 'GET' && path === '/limits') return this.json(res, 200, { DailyApiRequests: { Max: this.apiLimit, Remaining: this.apiLimit - this.apiUsed } });
    if (method === 'GET' && path === '/query') return this.query(url.searchParams.get('q') ?? '', res);
    const locator = /^\/query\/([A-Za-z0-9-]+)$/.exec(path)?.[1];
    if (method === 'GET' && locator) return this.queryMore(locator, res);
    const describe = /^\/sobjects\/(Contact|Lead|Account)\/describe$/.exec(path)?.[1] as SObjectType | undefined;
    if (method === 'GET' && describe) return this.json(res, 200, { name: describe, fields: [...this.visibleFields(describe)].map((name) => ({ name, updateable: name !== 'Id' && name !== 'SystemModstamp' })) });
    const listView = /^\/sobjects\/(Contact|Lead)\/listviews\/([A-Za-z0-9]+)\/describe$/.exec(path);
    if (method === 'GET' && listView) {
      const view = this.listViews.get(listView[2]!);
      return view && view.object === listView[1] ? this.json(res, 200, { id: listView[2], sobjectType: view.object, query: view.query }) : this.json(res, 404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    }
    if (method === 'POST' && path === '/sobjects/PermissionSetAssignment') {
      const input = JSON.parse(body) as { AssigneeId: string; PermissionSetId: string };
      const set = [...this.permissionSets.entries()].find(([, s]) => s.id === input.PermissionSetId);
      if (!set || input.AssigneeId !== this.userId) return this.json(res, 400, [{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id' }]);
      if (this.assignments.has(set[0])) return this.json(res, 400, [{ errorCode: 'DUPLICATE_VALUE', message: 'duplicate value found: assignment already exists' }]);
      this.assignments.add(set[0]);
      return this.json(res, 201, { id: this.newId('0Pa'), success: true, errors: [] });
    }
    if (path === '/tooling/query' || path === '/tooling/sobjects/PlatformEventChannelMember') {
      const answer = method === 'GET' && path === '/tooling/query' ? this.changeEvents.query(url.searchParams.get('q') ?? '') : method === 'POST' ? this.changeEvents.create(body) : undefined;
      return answer ? this.json(res, answer.status, answer.body) : this.json(res, 405, [{ errorCode: 'METHOD_NOT_ALLOWED', message: `${method} not allowed` }]);
    }
    if (method === 'PATCH' && path === '/composite/sobjects') return this.collections(JSON.parse(body) as { allOrNone?: boolean; records: Record<string, unknown>[] }, res);
    if (path.startsWith('/jobs/')) return this.bulk.handle(method, path, url, body, req, res);
    return this.json(res, 404, [{ errorCode: 'NOT_FOUND', message: `the fake has no ${method} ${path}` }]);
  }

  /** Runs a SOQL query: its fields and condition checked against what the user can see. */
  runQuery(soql: string): { totalSize: number; rows: Record<string, unknown>[]; fields: string[]; count: boolean } | { error: string; errorCode: string } {
    let parsed;
    try {
      parsed = parseSoql(soql);
    } catch (error) {
      return { errorCode: 'MALFORMED_QUERY', error: String((error as Error).message).split('\n')[0]! };
    }
    if (parsed.object === 'PermissionSetAssignment' || parsed.object === 'PermissionSet') return this.setupQuery(parsed.object, soql);
    if (parsed.object === 'Organization') {
      const org = { Id: this.orgId, OrganizationType: this.organizationType, IsSandbox: this.isSandbox };
      return { totalSize: 1, rows: [Object.fromEntries(parsed.fields.map((f) => [f, org[f as keyof typeof org] ?? null]))], fields: parsed.fields, count: false };
    }
    const type = parsed.object as SObjectType;
    if (!(type in STANDARD_FIELDS)) return { errorCode: 'INVALID_TYPE', error: `sObject type '${type}' is not supported` };
    const visible = this.visibleFields(type);
    const named = [...parsed.fields, ...[...soql.matchAll(/\b([A-Za-z_]+__c|IsPersonAccount)\b/g)].map((m) => m[1]!)];
    const unknown = named.find((f) => !visible.has(f));
    if (unknown) return { errorCode: 'INVALID_FIELD', error: `No such column '${unknown}' on entity '${type}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name.` };
    let rows = this.ofType(type).filter((r) => parsed.matches(r));
    if (parsed.orderById) rows.sort((a, b) => (a.Id < b.Id ? -1 : 1));
    if (parsed.limit !== undefined) rows = rows.slice(0, parsed.limit);
    const projected = rows.map((r) => Object.fromEntries(parsed.fields.map((f) => [f, r[f] ?? null])));
    return { totalSize: rows.length, rows: projected, fields: parsed.fields, count: parsed.count };
  }

  private setupQuery(object: string, soql: string) {
    const name = /Name = '([^']+)'/.exec(soql)?.[1] ?? '';
    const set = this.permissionSets.get(name);
    if (object === 'PermissionSet') return { totalSize: set ? 1 : 0, rows: set ? [{ Id: set.id }] : [], fields: ['Id'], count: false };
    const assigned = this.assignments.has(name) && soql.includes(this.userId);
    return { totalSize: assigned ? 1 : 0, rows: assigned ? [{ Id: `0Pa${set?.id ?? ''}` }] : [], fields: ['Id'], count: false };
  }

  private query(soql: string, res: ServerResponse): void {
    const answer = this.runQuery(soql);
    if ('error' in answer) return this.json(res, 400, [{ message: answer.error, errorCode: answer.errorCode }]);
    if (answer.count) return this.json(res, 200, { totalSize: answer.totalSize, done: true, records: [] });
    this.page(answer.rows, answer.totalSize, res);
  }

  private page(rows: Record<string, unknown>[], totalSize: number, res: ServerResponse): void {
    const batch = rows.slice(0, QUERY_BATCH);
    const rest = rows.slice(QUERY_BATCH);
    let nextRecordsUrl: string | undefined;
    if (rest.length) {
      const id = `01g5g${String(this.serial++).padStart(13, '0')}-${QUERY_BATCH}`;
      this.cursors.set(id, { rows: rest, expired: false });
      nextRecordsUrl = `/services/data/v62.0/query/${id}`;
    }
    this.json(res, 200, { totalSize, done: !nextRecordsUrl, ...(nextRecordsUrl ? { nextRecordsUrl } : {}), records: batch.map((r) => ({ attributes: { type: this.records.get(String(r.Id))?.type ?? 'Contact', url: `/services/data/v62.0/sobjects/x/${String(r.Id)}` }, ...r })) });
  }

  private queryMore(locator: string, res: ServerResponse): void {
    const cursor = this.cursors.get(locator);
    if (!cursor || cursor.expired) return this.json(res, 400, [{ message: 'invalid query locator', errorCode: 'INVALID_QUERY_LOCATOR' }]);
    this.cursors.delete(locator);
    this.page(cursor.rows, cursor.rows.length, res);
  }

  /** sObject Collections update: at most 200 records, one result per record in order, allOrNone false. */
  private collections(input: { allOrNone?: boolean; records: Record<string, unknown>[] }, res: ServerResponse): void {
    if (input.records.length > COLLECTION_MAX) return this.json(res, 400, [{ message: 'record limit reached. cannot submit more than 200 records into this call', errorCode: 'EXCEEDED_ID_LIMIT' }]);
    for (const record of input.records) {
      const type = (record.attributes as { type?: SObjectType } | undefined)?.type ?? 'Contact';
      const visible = this.visibleFields(type);
      const unknown = Object.keys(record).find((f) => f !== 'attributes' && f !== 'id' && !visible.has(f));
      if (unknown) return this.json(res, 400, [{ message: `No such column '${unknown}' on sobject of type ${type}`, errorCode: 'INVALID_FIELD' }]);
    }
    this.collectionSizes.push(input.records.length);
    const results = input.records.map((record) => {
      const { attributes, id, ...fields } = record as { attributes: { type: SObjectType }; id: string } & Record<string, unknown>;
      const error = this.update(attributes.type, id, fields);
      return error ? { id, success: false, errors: [{ statusCode: error.split(':')[0], message: error, fields: [] }] } : { id, success: true, errors: [] };
    });
    this.json(res, 200, results);
  }

  /** Applies one update; answers the error text when refused. Values as sent (JSON) or as CSV text (Bulk, `#N/A` clears). */
  update(type: SObjectType, id: string, fields: Record<string, unknown>): string | undefined {
    const record = this.records.get(id);
    if (!record || record.type !== type) return 'ENTITY_IS_DELETED: entity is deleted';
    const scripted = this.recordTroubles.get(id);
    if (scripted) {
      this.recordTroubles.delete(id);
      return `${scripted}: scripted failure`;
    }
    if (type === 'Contact' && record.IsPersonAccount === true) return 'INVALID_FIELD_FOR_INSERT_UPDATE: a person account contact is updated through its Account';
    if (type === 'Lead' && record.IsConverted === true) return 'CANNOT_UPDATE_CONVERTED_LEAD: cannot reference converted lead';
    // A Person Account's __pc fields are its contact's fields.
    const target = type === 'Account' ? [...this.records.values()].find((r) => r.AccountId === id) : record;
    if (!target) return 'ENTITY_IS_DELETED: no person contact';
    const applied: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(fields)) {
      const field = type === 'Account' ? (name === 'PersonHasOptedOutOfEmail' ? 'HasOptedOutOfEmail' : name.replace(/__pc$/, '__c')) : name;
      const definition = this.customFields.get(`${target.type}.${field}`);
      const value = raw === '#N/A' || raw === null || raw === '' ? null : raw;
      if (definition?.values && value !== null && !definition.values.includes(String(value))) return `INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST: bad value for restricted picklist field: ${String(value)}`;
      if (definition?.type === 'Number' && value !== null && !Number.isFinite(Number(value))) return `INVALID_TYPE_ON_FIELD_IN_RECORD: ${field}: value not of required type`;
      if (definition?.type === 'DateTime' && value !== null && !Number.isFinite(Date.parse(String(value)))) return `INVALID_TYPE_ON_FIELD_IN_RECORD: ${field}: value not of required type`;
      applied[field] = value === null ? null : definition?.type === 'Number' ? Number(value) : definition?.type === 'DateTime' ? sfTime(Date.parse(String(value))) : field === 'HasOptedOutOfEmail' ? String(value) === 'true' : value;
      if (CONSENT_FIELDS.has(name)) this.consentChanges.push({ id: target.Id, field: name, value: applied[field] });
    }
    Object.assign(target, applied, { SystemModstamp: this.tick(true) });
    this.writesPerRecord.set(target.Id, (this.writesPerRecord.get(target.Id) ?? 0) + 1);
    return undefined;
  }
}
