import express, { type NextFunction, type Request, type Response } from 'express';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeJournal } from './fake-journal';
import { FakeWorkflowActions } from './fake-workflow-actions';
import { unpublishedRequest } from './published-schemas';

/**
 * A fake of the HubSpot CRM API (the parts verify-hub uses), enforcing the real contract so the
 * connector is tested through the real SDK: bearer tokens per portal (401 otherwise, expired OAuth
 * tokens included), the 10-second window and the daily limit with 429 + `policyName` and the
 * `X-HubSpot-RateLimit-*` headers, search at 5/s, 100-input batches (400 above), 100-per-page object
 * listing and 200-per-page search with the 10,000-result cap (400 past it), `after` paging, 207 with
 * per-record errors, 409 on an existing property or group, property type checks, custom-property
 * limits, list memberships, account details and the OAuth token endpoint.
 *
 * Search results tied on the sort value come back in a random order on every query, as HubSpot does
 * not promise one: code that pages across re-filters must not rely on it.
 */

export interface FakeContact {
  id: string;
  properties: Record<string, string>;
  createdAt: number;
  /** lastmodifieddate, epoch ms. */
  updatedAt: number;
}

export interface PropertyDef {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  options?: { label: string; value: string; displayOrder?: number; hidden?: boolean }[];
  hubspotDefined?: boolean;
}

interface TokenInfo {
  portalId: string;
  /** `app`: a client-credentials token (the journal), of no portal. */
  kind: 'private' | 'oauth' | 'app';
  expiresAt?: number;
  /** The scopes a client-credentials token was granted (what it asked for). */
  scopes?: string[];
}

export interface PortalOptions {
  portalId: string;
  /** A private-app token for the portal. */
  token?: string;
  timeZone?: string;
  /** Calls per rolling window (default 100 per 10,000 ms, HubSpot's private-app limit). */
  windowLimit?: number;
  windowMs?: number;
  /** Search calls per second (default 5). */
  searchPerSecond?: number;
  dailyLimit?: number;
  /** Custom contact properties allowed (default 1,000). */
  customPropertyLimit?: number;
}

interface Portal extends Required<Omit<PortalOptions, 'token'>> {
  contacts: Map<string, FakeContact>;
  properties: Map<string, PropertyDef>;
  groups: Map<string, { name: string; label: string; displayOrder: number }>;
  lists: Map<string, string[]>;
  listNames: Map<string, string>;
  /** Per-record failures of batch update: id -> category, for the next `times` attempts. */
  recordFailures: Map<string, { category: string; message?: string; times: number }>;
  /** Ids whose batch update always fails validation (the whole batch answers 400, as HubSpot does). */
  invalidIds: Set<string>;
  windowStarts: number[];
  searchStarts: number[];
  dailyUsed: number;
  nextId: number;
}

export interface RecordedCall {
  method: string;
  path: string;
  portalId?: string;
  token?: string;
  status: number;
  /** Batch inputs sent, or the search page size asked for. */
  inputs?: number;
  /** The query string as sent (without `?`): a credential must never travel there. */
  query: string;
  at: number;
}

/** Scripted trouble: the next `count` calls matching `path` (all when absent) answer this way. */
export type Injection =
  | { kind: 'rate-limit'; policyName: 'TEN_SECONDLY_ROLLING' | 'SECONDLY' | 'DAILY'; count: number; path?: RegExp }
  | { kind: 'status'; status: number; count: number; path?: RegExp; body?: unknown };

const HUBSPOT_PROPERTIES: PropertyDef[] = [
  { name: 'email', label: 'Email', type: 'string', fieldType: 'text', groupName: 'contactinformation', hubspotDefined: true },
  { name: 'firstname', label: 'First name', type: 'string', fieldType: 'text', groupName: 'contactinformation', hubspotDefined: true },
  { name: 'lastmodifieddate', label: 'Last modified date', type: 'datetime', fieldType: 'date', groupName: 'contactinformation', hubspotDefined: true },
  { name: 'createdate', label: 'Create date', type: 'datetime', fieldType: 'date', groupName: 'contactinformation', hubspotDefined: true },
  { name: 'hs_object_id', label: 'Record ID', type: 'number', fieldType: 'number', groupName: 'contactinformation', hubspotDefined: true },
];

const DATE_PROPS = new Set(['lastmodifieddate', 'createdate', 'hs_email_last_send_date']);

export class FakeHubSpot {
  readonly calls: RecordedCall[] = [];
  /** The CRM operations called (by published name), and the requests refused for breaking their published schema. */
  readonly publishedChecked = new Set<string>();
  readonly unpublished: { operation: string; problem: string }[] = [];
  /** The automation actions API v4 (workflow-action definitions and callbacks). */
  readonly actions = new FakeWorkflowActions();
  /** The webhooks journal (pull-based events), read with a client-credentials token. */
  readonly journal = new FakeJournal();
  /** Batch-update writes applied per contact id (all portals): what "written exactly once" is checked against. */
  readonly writeCounts = new Map<string, number>();
  /** Portals the app was uninstalled from through the published uninstall API. */
  readonly externalUninstalls: string[] = [];
  readonly oauth = { clientId: 'fake-client-id', clientSecret: 'fake-client-secret', accessTokenTtlSeconds: 1800 };
  private readonly portals = new Map<string, Portal>();
  private readonly tokens = new Map<string, TokenInfo>();
  private readonly refreshTokens = new Map<string, string>();
  private readonly authCodes = new Map<string, { portalId: string; redirectUri: string }>();
  private injections: Injection[] = [];
  private server?: Server;
  private clock = 0;
  url = '';

  addPortal(options: PortalOptions): Portal {
    const portal: Portal = {
      portalId: options.portalId,
      timeZone: options.timeZone ?? 'UTC',
      windowLimit: options.windowLimit ?? 100,
      windowMs: options.windowMs ?? 10_000,
      searchPerSecond: options.searchPerSecond ?? 5,
      dailyLimit: options.dailyLimit ?? 250_000,
      customPropertyLimit: options.customPropertyLimit ?? 1000,
      contacts: new Map(),
      properties: new Map(HUBSPOT_PROPERTIES.map((p) => [p.name, { ...p }])),
      groups: new Map([['contactinformation', { name: 'contactinformation', label: 'Contact information', displayOrder: 0 }]]),
      lists: new Map(),
      listNames: new Map(),
      recordFailures: new Map(),
      invalidIds: new Set(),
      windowStarts: [],
      searchStarts: [],
      dailyUsed: 0,
      nextId: 1001,
    };
    this.portals.set(portal.portalId, portal);
    if (options.token) this.tokens.set(options.token, { portalId: portal.portalId, kind: 'private' });
    return portal;
  }

  portal(portalId: string): Portal {
    const p = this.portals.get(portalId);
    if (!p) throw new Error(`no fake portal ${portalId}`);
    return p;
  }

  /** A strictly increasing clock for lastmodifieddate unless a test sets times itself. */
  private tick(): number {
    this.clock = Math.max(this.clock + 1, Date.now());
    return this.clock;
  }

  /** Adds contacts; `modifiedAt` lets a test create ties and spreads. Returns their ids. */
  addContacts(portalId: string, contacts: { email?: string; properties?: Record<string, string>; modifiedAt?: number }[]): string[] {
    const portal = this.portal(portalId);
    return contacts.map((c) => {
      const id = String(portal.nextId++);
      const now = c.modifiedAt ?? this.tick();
      const properties: Record<string, string> = { ...(c.properties ?? {}) };
      if (c.email !== undefined) properties.email = c.email;
      portal.contacts.set(id, { id, properties, createdAt: now, updatedAt: now });
      return id;
    });
  }

  /**
   * A marketing email sent to contacts at `atMs`, as HubSpot keeps it on each: `hs_email_last_send_date`,
   * and for those in `hardBounces` the hard-bounce reason (`hs_email_hard_bounce_reason_enum`, and its
   * text in `hs_email_hard_bounce_reason`). Each contact's modification time moves on.
   */
  sendEmail(portalId: string, contactIds: string[], atMs: number, hardBounces: Map<string, { reason: string; text?: string }> = new Map()): void {
    const portal = this.portal(portalId);
    for (const id of contactIds) {
      const contact = portal.contacts.get(id);
      if (!contact) continue;
      contact.properties.hs_email_last_send_date = new Date(atMs).toISOString();
      const bounce = hardBounces.get(id);
      if (bounce) {
        contact.properties.hs_email_hard_bounce_reason_enum = bounce.reason;
        if (bounce.text) contact.properties.hs_email_hard_bounce_reason = bounce.text;
      }
      contact.updatedAt = this.tick();
    }
  }

  /** A static list of contacts; HubSpot names it (`List <id>` unless given). */
  setList(portalId: string, listId: string, contactIds: string[], name = `List ${listId}`): void {
    this.portal(portalId).lists.set(listId, [...contactIds]);
    this.portal(portalId).listNames.set(listId, name);
  }

  addProperty(portalId: string, def: PropertyDef): void {
    this.portal(portalId).properties.set(def.name, def);
  }

  issueAuthCode(portalId: string, redirectUri: string): string {
    const code = `code-${randomBytes(6).toString('hex')}`;
    this.authCodes.set(code, { portalId, redirectUri });
    return code;
  }

  /** Makes an OAuth access token expire now (the next call with it answers 401). */
  expireToken(token: string): void {
    const info = this.tokens.get(token);
    if (info) info.expiresAt = Date.now() - 1;
  }

  /** Revokes a token (an app uninstalled, a private-app token rotated): every call with it answers 401. */
  revokeToken(token: string): void {
    this.tokens.delete(token);
  }

  /**
   * The app uninstalled from a portal: HubSpot deletes the install's OAuth tokens (every call with
   * them answers 401, a refresh 400) and records the app lifecycle uninstall event in the journal.
   */
  uninstallApp(portalId: string): void {
    for (const [token, info] of this.tokens) if (info.portalId === portalId && info.kind === 'oauth') this.tokens.delete(token);
    for (const [token, owner] of this.refreshTokens) if (owner === portalId) this.refreshTokens.delete(token);
    // The published app lifecycle event (eventTypeId 4-1916193: app uninstall).
    this.journal.publish(portalId, [{ subscriptionType: 'APP_LIFECYCLE_EVENT', eventTypeId: '4-1916193' }]);
  }

  /**
   * What HubSpot does for a UI extension's `hubspot.fetch(url, { method, body })`: adds the caller's
   * portalId, userId, userEmail and appId to the URL, sends the body as JSON and signs the request
   * with the v3 signature (the app's client secret over method, URL, body and timestamp). `sign`
   * lets a test forge or age it.
   */
  async uiExtensionFetch(url: string, options: { portalId: string; method?: string; body?: unknown; userId?: number; sign?: { secret?: string; timestamp?: number; unsigned?: boolean } }): Promise<globalThis.Response> {
    const target = new URL(url);
    for (const [name, value] of Object.entries({ portalId: options.portalId, userId: String(options.userId ?? 1), userEmail: 'user@example.com', appId: '4242' })) target.searchParams.set(name, value);
    const method = options.method ?? 'POST';
    const body = options.body === undefined ? '' : JSON.stringify(options.body);
    const timestamp = String(options.sign?.timestamp ?? Date.now());
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-hubspot-request-timestamp': timestamp };
    // HubSpot signs the URI with these characters decoded.
    const uri = target.toString().replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (encoded) => decodeURIComponent(encoded));
    if (!options.sign?.unsigned) headers['x-hubspot-signature-v3'] = createHmac('sha256', options.sign?.secret ?? this.oauth.clientSecret).update(`${method}${uri}${body}${timestamp}`, 'utf8').digest('base64');
    return fetch(target, { method, headers, ...(body ? { body } : {}) });
  }

  /** A new private-app token for a portal (what a user pastes when reconnecting). */
  grantToken(portalId: string, token: string): void {
    this.portal(portalId);
    this.tokens.set(token, { portalId, kind: 'private' });
  }

  inject(injection: Injection): void {
    this.injections.push({ ...injection });
  }

  callsTo(path: RegExp, method?: string): RecordedCall[] {
    return this.calls.filter((c) => path.test(c.path) && (!method || c.method === method));
  }

  resetCalls(): void {
    this.calls.length = 0;
  }

  async start(): Promise<string> {
    const app = express();
    // HubSpot's id of the request, on every answer.
    app.use((_req, res, next) => void (res.setHeader('x-hubspot-correlation-id', randomUUID()), next()));
    app.use(express.json({ limit: '10mb' }));
    app.use(express.urlencoded({ extended: false }));
    app.use((req, res, next) => this.record(req, res, next));
    app.post('/oauth/v1/token', (req, res) => this.token(req, res));
    app.use(this.actions.definitionsRouter());
    app.use(this.journal.router((token) => (token && this.tokens.get(token)?.kind === 'app' ? (this.tokens.get(token)!.scopes ?? []) : undefined)));
    app.use((req, res, next) => this.authenticate(req, res, next));
    app.use((req, res, next) => this.limit(req, res, next));
    app.use((req, res, next) => this.checkPublished(req, res, next));
    app.use(this.actions.callbacksRouter());
    // The published uninstall API: the install of the calling OAuth token's app on its portal (scope oauth).
    app.delete('/appinstalls/v3/external-install', (_req, res) => {
      if (res.locals.tokenKind !== 'oauth') return void error(res, 403, 'MISSING_SCOPES', 'This app hasn\'t been granted all required scopes to make this call: oauth');
      this.uninstallApp(res.locals.portalId as string);
      this.externalUninstalls.push(res.locals.portalId as string);
      res.status(204).end();
    });
    app.get('/account-info/v3/details', (req, res) => {
      const portal = this.portalOf(res);
      res.json({ portalId: Number(portal.portalId), timeZone: portal.timeZone, accountType: 'STANDARD', currencies: ['USD'], uiDomain: 'app.hubspot.com', dataHostingLocation: 'na1' });
    });
    app.get('/crm/v3/limits/custom-properties', (_req, res) => {
      const portal = this.portalOf(res);
      const usage = [...portal.properties.values()].filter((p) => !p.hubspotDefined).length;
      res.json({
        byObjectType: [{ objectTypeId: '0-1', singularLabel: 'Contact', pluralLabel: 'Contacts', limit: portal.customPropertyLimit, usage, percentage: (usage * 100) / portal.customPropertyLimit }],
        overallLimit: portal.customPropertyLimit, overallUsage: usage, overallPercentage: (usage * 100) / portal.customPropertyLimit,
      });
    });
    app.get('/crm/v3/properties/contacts/groups', (_req, res) => res.json({ results: [...this.portalOf(res).groups.values()] }));
    app.post('/crm/v3/properties/contacts/groups', (req, res) => this.createGroup(req, res));
    app.get('/crm/v3/properties/contacts', (_req, res) => res.json({ results: [...this.portalOf(res).properties.values()].map(propertyBody) }));
    app.post('/crm/v3/properties/contacts', (req, res) => this.createProperty(req, res));
    app.get('/crm/v3/objects/contacts', (req, res) => this.listContacts(req, res));
    app.post('/crm/v3/objects/contacts/search', (req, res) => this.search(req, res));
    app.post('/crm/v3/objects/contacts/batch/read', (req, res) => this.batchRead(req, res));
    app.post('/crm/v3/objects/contacts/batch/update', (req, res) => this.batchUpdate(req, res));
    app.get('/crm/v3/lists/:listId/memberships', (req, res) => this.memberships(req, res));
    app.get('/crm/v3/lists/:listId', (req, res) => this.listById(req, res));
    app.use((req, res) => error(res, 404, 'OBJECT_NOT_FOUND', `No route ${req.method} ${req.path}`));
    this.server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  // ------------------------------------------------------------ plumbing

  private record(req: Request, res: Response, next: NextFunction): void {
    const auth = req.headers.authorization;
    const call: RecordedCall = {
      method: req.method, path: req.path, status: 0, at: Date.now(), query: req.originalUrl.split('?')[1] ?? '',
      token: auth?.startsWith('Bearer ') ? auth.slice(7) : undefined,
      inputs: Array.isArray(req.body?.inputs) ? req.body.inputs.length : typeof req.body?.limit === 'number' ? req.body.limit : undefined,
    };
    this.calls.push(call);
    res.on('finish', () => {
      call.status = res.statusCode;
      call.portalId = res.locals.portalId as string | undefined;
    });
    next();
  }

  /** A CRM request that breaks its published operation (a query parameter or body member it does not define) is refused as HubSpot would. */
  private checkPublished(req: Request, res: Response, next: NextFunction): void {
    const checked = unpublishedRequest(req.method, req.path, req.query as Record<string, unknown>, req.body);
    if (!checked) return next();
    this.publishedChecked.add(checked.operation);
    if (!checked.problem) return next();
    this.unpublished.push({ operation: checked.operation, problem: checked.problem });
    error(res, 400, 'VALIDATION_ERROR', `Invalid input JSON: ${checked.problem}`);
  }

  private authenticate(req: Request, res: Response, next: NextFunction): void {
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : undefined;
    const info = token ? this.tokens.get(token) : undefined;
    if (!info) return void error(res, 401, 'INVALID_AUTHENTICATION', 'Authentication credentials not found. This API supports OAuth 2.0 authentication.');
    if (info.expiresAt !== undefined && info.expiresAt <= Date.now()) return void error(res, 401, 'EXPIRED_AUTHENTICATION', 'The OAuth token used to make this call expired.');
    if (info.kind === 'app') return void error(res, 403, 'MISSING_SCOPES', 'A client credentials token reaches the webhooks journal only.');
    res.locals.portalId = info.portalId;
    res.locals.tokenKind = info.kind;
    next();
  }

  private portalOf(res: Response): Portal {
    return this.portal(res.locals.portalId as string);
  }

  private limit(req: Request, res: Response, next: NextFunction): void {
    const portal = this.portalOf(res);
    const now = Date.now();
    const injected = this.takeInjection(req.path);
    const send429 = (policyName: string, message: string) => {
      this.rateHeaders(res, portal, now);
      res.status(429).json({ status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName, groupName: `api-calls:${portal.portalId}` });
    };
    if (injected?.kind === 'rate-limit') return void send429(injected.policyName, `You have reached your ${injected.policyName.toLowerCase()} limit.`);
    if (injected?.kind === 'status') return void res.status(injected.status).json(injected.body ?? { status: 'error', message: 'internal error', category: 'INTERNAL_ERROR', correlationId: randomUUID() });
    if (portal.dailyUsed >= portal.dailyLimit) return void send429('DAILY', 'You have reached your daily limit.');
    while (portal.windowStarts.length && now - portal.windowStarts[0]! >= portal.windowMs) portal.windowStarts.shift();
    if (portal.windowStarts.length >= portal.windowLimit) return void send429('TEN_SECONDLY_ROLLING', 'You have reached your ten_secondly_rolling limit.');
    if (req.path.endsWith('/search')) {
      while (portal.searchStarts.length && now - portal.searchStarts[0]! >= 1000) portal.searchStarts.shift();
      if (portal.searchStarts.length >= portal.searchPerSecond) return void send429('SECONDLY', 'You have reached your secondly limit.');
      portal.searchStarts.push(now);
    }
    portal.windowStarts.push(now);
    portal.dailyUsed++;
    this.rateHeaders(res, portal, now);
    next();
  }

  private rateHeaders(res: Response, portal: Portal, _now: number): void {
    res.setHeader('X-HubSpot-RateLimit-Max', String(portal.windowLimit));
    res.setHeader('X-HubSpot-RateLimit-Remaining', String(Math.max(0, portal.windowLimit - portal.windowStarts.length)));
    res.setHeader('X-HubSpot-RateLimit-Interval-Milliseconds', String(portal.windowMs));
    if (res.locals.tokenKind !== 'oauth') {
      res.setHeader('X-HubSpot-RateLimit-Daily', String(portal.dailyLimit));
      res.setHeader('X-HubSpot-RateLimit-Daily-Remaining', String(Math.max(0, portal.dailyLimit - portal.dailyUsed)));
    }
  }

  private takeInjection(path: string): Injection | undefined {
    const found = this.injections.find((i) => i.count > 0 && (!i.path || i.path.test(path)));
    if (!found) return undefined;
    found.count--;
    this.injections = this.injections.filter((i) => i.count > 0);
    return found;
  }

  // ------------------------------------------------------------ OAuth

  private token(req: Request, res: Response): void {
    const body = req.body as Record<string, string | undefined>;
    if (!req.is('application/x-www-form-urlencoded')) return void res.status(400).json({ status: 'BAD_REQUEST', message: 'form-encoded body required' });
    if (body.client_id !== this.oauth.clientId || body.client_secret !== this.oauth.clientSecret) return void res.status(400).json({ status: 'BAD_CLIENT_ID', message: 'missing or unknown client id' });
    let portalId: string | undefined;
    let refreshToken: string | undefined;
    if (body.grant_type === 'authorization_code') {
      const code = body.code ? this.authCodes.get(body.code) : undefined;
      if (!code) return void res.status(400).json({ status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code' });
      if (code.redirectUri !== body.redirect_uri) return void res.status(400).json({ status: 'BAD_REDIRECT_URI', message: 'redirect_uri does not match' });
      this.authCodes.delete(body.code!);
      portalId = code.portalId;
      refreshToken = `refresh-${randomBytes(8).toString('hex')}`;
      this.refreshTokens.set(refreshToken, portalId);
    } else if (body.grant_type === 'client_credentials') {
      const accessToken = `app-${randomBytes(8).toString('hex')}`;
      this.tokens.set(accessToken, { portalId: '', kind: 'app', expiresAt: Date.now() + this.oauth.accessTokenTtlSeconds * 1000, scopes: String(body.scope ?? '').split(/\s+/).filter(Boolean) });
      return void res.json({ token_type: 'bearer', access_token: accessToken, expires_in: this.oauth.accessTokenTtlSeconds });
    } else if (body.grant_type === 'refresh_token') {
      portalId = body.refresh_token ? this.refreshTokens.get(body.refresh_token) : undefined;
      if (!portalId) return void res.status(400).json({ status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token' });
      refreshToken = body.refresh_token;
    } else {
      return void res.status(400).json({ status: 'BAD_GRANT_TYPE', message: 'unknown grant_type' });
    }
    const accessToken = `oauth-${portalId}-${randomBytes(8).toString('hex')}`;
    this.tokens.set(accessToken, { portalId, kind: 'oauth', expiresAt: Date.now() + this.oauth.accessTokenTtlSeconds * 1000 });
    res.json({ token_type: 'bearer', refresh_token: refreshToken, access_token: accessToken, expires_in: this.oauth.accessTokenTtlSeconds });
  }

  // ------------------------------------------------------------ properties

  private createGroup(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const { name, label } = req.body as { name?: string; label?: string };
    if (!name || !label) return void error(res, 400, 'VALIDATION_ERROR', 'name and label are required');
    if (portal.groups.has(name)) return void error(res, 409, 'OBJECT_ALREADY_EXISTS', `A property group named '${name}' already exists.`);
    const group = { name, label, displayOrder: Number(req.body.displayOrder ?? -1) };
    portal.groups.set(name, group);
    res.status(201).json(group);
  }

  private createProperty(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const def = req.body as PropertyDef;
    if (!def.name || !def.label || !def.type || !def.fieldType || !def.groupName) return void error(res, 400, 'VALIDATION_ERROR', 'name, label, type, fieldType and groupName are required');
    if (portal.properties.has(def.name)) return void error(res, 409, 'OBJECT_ALREADY_EXISTS', `Property named '${def.name}' already exists.`);
    if (!portal.groups.has(def.groupName)) return void error(res, 400, 'VALIDATION_ERROR', `Property group '${def.groupName}' does not exist.`);
    const valid: Record<string, string[]> = { string: ['text', 'textarea'], number: ['number'], datetime: ['date'], date: ['date'], enumeration: ['select', 'radio', 'checkbox', 'booleancheckbox'], bool: ['booleancheckbox'] };
    if (!valid[def.type]?.includes(def.fieldType)) return void error(res, 400, 'VALIDATION_ERROR', `fieldType ${def.fieldType} is not valid for type ${def.type}`);
    if ((def.type === 'enumeration' || def.type === 'bool') && !(def.options?.length)) return void error(res, 400, 'VALIDATION_ERROR', `${def.type} properties need options`);
    const custom = [...portal.properties.values()].filter((p) => !p.hubspotDefined).length;
    if (custom >= portal.customPropertyLimit) return void error(res, 400, 'VALIDATION_ERROR', 'You have reached the limit of custom properties for contacts.');
    const stored: PropertyDef = { name: def.name, label: def.label, type: def.type, fieldType: def.fieldType, groupName: def.groupName, options: def.options };
    portal.properties.set(def.name, stored);
    res.status(201).json(propertyBody(stored));
  }

  // ------------------------------------------------------------ contacts

  private listContacts(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const limit = req.query.limit === undefined ? 10 : Number(req.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return void error(res, 400, 'VALIDATION_ERROR', 'limit must be between 1 and 100');
    const after = req.query.after === undefined ? undefined : String(req.query.after);
    const props = queryList(req.query.properties);
    // Ids are handed out in increasing order, so the map's insertion order is id order.
    const all = [...portal.contacts.values()];
    const start = after === undefined ? 0 : firstAbove(all, Number(after));
    const page = start < 0 ? [] : all.slice(start, start + limit);
    const more = start >= 0 && start + limit < all.length;
    res.json({
      results: page.map((c) => contactBody(c, props)),
      ...(more ? { paging: { next: { after: page.at(-1)!.id, link: `${this.url}/crm/v3/objects/contacts?after=${page.at(-1)!.id}` } } } : {}),
    });
  }

  private search(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const body = req.body as { filterGroups?: { filters: { propertyName: string; operator: string; value?: string }[] }[]; sorts?: unknown[]; properties?: string[]; limit?: number; after?: string };
    const limit = body.limit ?? 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) return void error(res, 400, 'VALIDATION_ERROR', 'limit must be between 1 and 200');
    const after = body.after === undefined ? 0 : Number(body.after);
    if (!Number.isInteger(after) || after < 0) return void error(res, 400, 'VALIDATION_ERROR', 'after must be a non-negative integer offset');
    if (after + limit > 10_000) return void error(res, 400, 'VALIDATION_ERROR', 'The search API returns at most 10,000 results per query: after + limit is over 10000.');
    if ((body.sorts?.length ?? 0) > 1) return void error(res, 400, 'VALIDATION_ERROR', 'Only one sort is allowed.');
    if ((body.filterGroups?.length ?? 0) > 5) return void error(res, 400, 'VALIDATION_ERROR', 'At most 5 filter groups.');
    const value = (c: FakeContact, name: string): string | number | undefined => {
      if (name === 'lastmodifieddate') return c.updatedAt;
      if (name === 'createdate') return c.createdAt;
      if (name === 'hs_object_id') return Number(c.id);
      if (DATE_PROPS.has(name)) return toMs(c.properties[name]);
      return c.properties[name];
    };
    const matches = (c: FakeContact) => !body.filterGroups?.length || body.filterGroups.some((g) => g.filters.every((f) => {
      const v = value(c, f.propertyName);
      const numeric = DATE_PROPS.has(f.propertyName) || f.propertyName === 'hs_object_id';
      const want = numeric ? toMs(f.value) : f.value;
      if (v === undefined) return f.operator === 'NOT_HAS_PROPERTY';
      switch (f.operator) {
        case 'EQ': return v === want;
        case 'NEQ': return v !== want;
        case 'GT': return want !== undefined && v > want;
        case 'GTE': return want !== undefined && v >= want;
        case 'LT': return want !== undefined && v < want;
        case 'LTE': return want !== undefined && v <= want;
        case 'HAS_PROPERTY': return true;
        default: return false;
      }
    }));
    const sort = body.sorts?.[0] as { propertyName: string; direction?: string } | string | undefined;
    const sortName = typeof sort === 'string' ? sort.replace(/^-/, '') : sort?.propertyName ?? 'hs_object_id';
    const descending = typeof sort === 'string' ? sort.startsWith('-') : sort?.direction === 'DESCENDING';
    const found = shuffle([...portal.contacts.values()].filter(matches)).sort((a, b) => {
      const va = value(a, sortName) ?? '';
      const vb = value(b, sortName) ?? '';
      const cmp = va < vb ? -1 : va > vb ? 1 : 0;
      return descending ? -cmp : cmp;
    });
    const page = found.slice(after, after + limit);
    const more = after + limit < found.length;
    res.json({
      total: found.length,
      results: page.map((c) => contactBody(c, body.properties ?? [])),
      ...(more ? { paging: { next: { after: String(after + limit) } } } : {}),
    });
  }

  private batchRead(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const { inputs, properties } = req.body as { inputs?: { id: string }[]; properties?: string[] };
    if (!Array.isArray(inputs) || inputs.length === 0) return void error(res, 400, 'VALIDATION_ERROR', 'inputs are required');
    if (inputs.length > 100) return void error(res, 400, 'VALIDATION_ERROR', `Batch of ${inputs.length} inputs is over the limit of 100.`);
    const results = inputs.map((i) => portal.contacts.get(String(i.id))).filter((c): c is FakeContact => c !== undefined);
    const missing = inputs.map((i) => String(i.id)).filter((id) => !portal.contacts.has(id));
    const body = batchBody(results.map((c) => contactBody(c, properties ?? [])), missing.length ? [{ status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.', context: { ids: missing }, links: {}, errors: [] }] : []);
    res.status(missing.length ? 207 : 200).json(body);
  }

  private batchUpdate(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const { inputs } = req.body as { inputs?: { id: string; properties: Record<string, unknown> }[] };
    if (!Array.isArray(inputs) || inputs.length === 0) return void error(res, 400, 'VALIDATION_ERROR', 'inputs are required');
    if (inputs.length > 100) return void error(res, 400, 'VALIDATION_ERROR', `Batch of ${inputs.length} inputs is over the limit of 100.`);
    // One invalid value fails the whole batch, as HubSpot does.
    for (const input of inputs) {
      if (portal.invalidIds.has(String(input.id))) return void error(res, 400, 'VALIDATION_ERROR', `Property values were not valid: [{"isValid":false,"message":"invalid value","error":"INVALID_OPTION"}]`);
      for (const [name, raw] of Object.entries(input.properties ?? {})) {
        const def = portal.properties.get(name);
        if (!def) return void error(res, 400, 'VALIDATION_ERROR', `Property values were not valid: [{"isValid":false,"message":"Property \\"${name}\\" does not exist","error":"PROPERTY_DOESNT_EXIST","name":"${name}"}]`);
        const problem = valueProblem(def, raw);
        if (problem) return void error(res, 400, 'VALIDATION_ERROR', `Property values were not valid: [{"isValid":false,"message":"${problem}","error":"INVALID_OPTION","name":"${name}"}]`);
      }
    }
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const notFound: string[] = [];
    for (const input of inputs) {
      const id = String(input.id);
      const contact = portal.contacts.get(id);
      if (!contact) {
        notFound.push(id);
        continue;
      }
      const failure = portal.recordFailures.get(id);
      if (failure && failure.times > 0) {
        failure.times--;
        errors.push({ status: 'error', category: failure.category, message: failure.message ?? `${failure.category} for ${id}`, context: { ids: [id] }, links: {}, errors: [] });
        continue;
      }
      for (const [name, raw] of Object.entries(input.properties ?? {})) {
        const v = raw === null || raw === undefined ? '' : String(raw);
        if (v === '') delete contact.properties[name];
        else contact.properties[name] = storedValue(portal.properties.get(name)!, v);
      }
      contact.updatedAt = this.tick();
      this.writeCounts.set(id, (this.writeCounts.get(id) ?? 0) + 1);
      results.push(contactBody(contact, Object.keys(input.properties ?? {})));
    }
    if (notFound.length) errors.push({ status: 'error', category: 'OBJECT_NOT_FOUND', message: 'Could not get some CONTACT objects, they may be deleted or not exist.', context: { ids: notFound }, links: {}, errors: [] });
    res.status(errors.length ? 207 : 200).json(batchBody(results, errors));
  }

  /** `GET /crm/v3/lists/{listId}`: the list's definition (a static contact list). */
  private listById(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const listId = String(req.params.listId);
    const members = portal.lists.get(listId);
    if (!members) return void error(res, 404, 'OBJECT_NOT_FOUND', `List ${listId} does not exist.`);
    const at = new Date(0).toISOString();
    res.json({
      list: { listId, listVersion: 1, name: portal.listNames.get(listId) ?? `List ${listId}`, objectTypeId: '0-1', processingType: 'MANUAL', processingStatus: 'COMPLETE', size: members.length, createdAt: at, updatedAt: at, filtersUpdatedAt: at },
    });
  }

  private memberships(req: Request, res: Response): void {
    const portal = this.portalOf(res);
    const members = portal.lists.get(String(req.params.listId));
    if (!members) return void error(res, 404, 'OBJECT_NOT_FOUND', `List ${String(req.params.listId)} does not exist.`);
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250) return void error(res, 400, 'VALIDATION_ERROR', 'limit must be between 1 and 250');
    const offset = req.query.after === undefined ? 0 : Number(Buffer.from(String(req.query.after), 'base64url').toString('utf8'));
    const page = members.slice(offset, offset + limit);
    const more = offset + limit < members.length;
    res.json({
      total: members.length,
      results: page.map((recordId) => ({ recordId, membershipTimestamp: new Date(0).toISOString() })),
      ...(more ? { paging: { next: { after: Buffer.from(String(offset + limit)).toString('base64url') } } } : {}),
    });
  }
}

// ------------------------------------------------------------ helpers

function error(res: Response, status: number, category: string, message: string): void {
  res.status(status).json({ status: 'error', message, correlationId: randomUUID(), category });
}

function queryList(v: unknown): string[] {
  if (v === undefined) return [];
  const parts = Array.isArray(v) ? v.map(String) : [String(v)];
  return parts.flatMap((p) => p.split(',')).filter(Boolean);
}

function toMs(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (Number.isFinite(n)) return n;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

function firstAbove(sorted: FakeContact[], id: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Number(sorted[mid]!.id) > id) hi = mid;
    else lo = mid + 1;
  }
  return lo < sorted.length ? lo : -1;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

function contactBody(c: FakeContact, requested: string[]): Record<string, unknown> {
  const properties: Record<string, string | null> = {
    createdate: new Date(c.createdAt).toISOString(),
    lastmodifieddate: new Date(c.updatedAt).toISOString(),
    hs_object_id: c.id,
  };
  for (const name of requested) if (!(name in properties)) properties[name] = c.properties[name] ?? null;
  return { id: c.id, properties, createdAt: new Date(c.createdAt).toISOString(), updatedAt: new Date(c.updatedAt).toISOString(), archived: false };
}

function batchBody(results: unknown[], errors: unknown[]): Record<string, unknown> {
  const now = new Date().toISOString();
  return { status: 'COMPLETE', results, ...(errors.length ? { errors, numErrors: errors.length } : {}), requestedAt: now, startedAt: now, completedAt: now };
}

function propertyBody(p: PropertyDef): Record<string, unknown> {
  return { ...p, options: p.options ?? [], hidden: false, formField: false, calculated: false, externalOptions: false, hasUniqueValue: false, modificationMetadata: { archivable: true, readOnlyDefinition: Boolean(p.hubspotDefined), readOnlyValue: false } };
}

/** Why HubSpot would refuse this value for this property; undefined when it takes it. */
function valueProblem(def: PropertyDef, raw: unknown): string | undefined {
  if (raw === null || raw === '') return undefined;
  const v = String(raw);
  switch (def.type) {
    case 'number':
      return Number.isFinite(Number(v)) ? undefined : `${v} is not a valid number`;
    case 'datetime':
    case 'date':
      return /^\d+$/.test(v) || /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z?)?$/.test(v) ? undefined : `${v} is not a valid date`;
    case 'bool':
      return v === 'true' || v === 'false' ? undefined : `${v} is not a valid boolean (true or false)`;
    case 'enumeration':
      return def.options?.some((o) => o.value === v) ? undefined : `${v} was not one of the allowed options`;
    default:
      return undefined;
  }
}

/** HubSpot stores datetimes and reads them back as ISO 8601 with milliseconds. */
function storedValue(def: PropertyDef, v: string): string {
  if (def.type === 'datetime') return new Date(/^\d+$/.test(v) ? Number(v) : Date.parse(v)).toISOString();
  return v;
}
