import { z } from 'zod';
import { VerifyHubError, type ContactEvent, type Logger } from '@verify-hub/core';
import { HubSpotApiError, HubSpotAuthError, hubspotNetworkError } from './errors';
import { hubspotErrorFromResponse, type HeaderBag } from './response-errors';

/**
 * HubSpot's webhooks journal (API 2026-03), the pull-based alternative to push webhooks for a hub
 * with no public URL: the local journal of one installed portal, read with the app's
 * client-credentials token. `earliest` and `offset/{offset}/next` each name one entry; the entry's
 * events are in the file at `url`. Nothing after an offset: 204; an offset past the journal's 3-day
 * retention: 404 (`JournalOffsetExpiredError`).
 *
 * HubSpot publishes no success schema for these two answers, only for the batch endpoints
 * (`JournalFetchResponse`: `url`, `currentOffset`, `expiresAt`). So they are read leniently and checked
 * field by field: an answer without a usable `url` and `currentOffset`, or a file event of a shape not
 * known here, is logged with HubSpot's request id (`X-HubSpot-Correlation-Id`) and skipped (an answer
 * counts as "nothing yet", so the offset does not move and it is asked again), never a crash.
 */
export const JOURNAL_PATH = '/webhooks-journal/journal-local/2026-03';
/** The scope the published journal operations declare (`webhooks-journal-data-access`). */
export const JOURNAL_SCOPE = 'webhooks-journal-data-access';
/** HubSpot's event type id of an app uninstall (APP_LIFECYCLE_EVENT subscriptions). */
export const APP_UNINSTALL_EVENT_TYPE = '4-1916193';
const TOKEN_MARGIN_MS = 60_000;

/** One journal entry as the hub's event path takes it; `uninstalled` when the entry holds the app's APP_UNINSTALL for the portal. */
export interface JournalEntry {
  offset: string;
  events: ContactEvent[];
  uninstalled: boolean;
  /** Events of a shape this reader does not know, by place (`journalEvents[3]: action: ...`): skipped. */
  unread: string[];
}

/** The saved offset is older than the journal keeps (3 days): events between it and the earliest entry are lost. */
export class JournalOffsetExpiredError extends VerifyHubError {
  override readonly code: string = 'JOURNAL_OFFSET_EXPIRED';
}

/** The fields of an entry answer this reader relies on, each checked on its own. */
const AnswerFields = { url: z.url({ protocol: /^https?$/ }), currentOffset: z.string().min(1) };
const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String);
/** A property change as the journal lists it; the value may come as `newValue`, `propertyValue` or `value`. */
const ChangeSchema = z.looseObject({
  propertyName: z.string().optional(),
  name: z.string().optional(),
  newValue: z.string().nullable().optional(),
  propertyValue: z.string().nullable().optional(),
  value: z.string().nullable().optional(),
});
const JournalEventSchema = z.looseObject({
  subscriptionType: z.string().optional(),
  eventTypeId: z.string().optional(),
  action: z.string().optional(),
  portalId: id.optional(),
  objectTypeId: z.string().optional(),
  objectId: id.optional(),
  occurredAt: z.union([z.number(), z.string()]).optional(),
  propertyChanges: z.union([z.array(ChangeSchema), z.record(z.string(), z.string().nullable())]).optional(),
});
const JournalFileSchema = z.looseObject({ offset: z.string().optional(), journalEvents: z.array(z.unknown()) });

function emailChange(changes: z.infer<typeof JournalEventSchema>['propertyChanges']): string | undefined {
  if (!changes) return undefined;
  const value = Array.isArray(changes)
    ? changes.filter((c) => (c.propertyName ?? c.name) === 'email').map((c) => c.newValue ?? c.propertyValue ?? c.value).at(-1)
    : changes.email;
  return value?.trim() || undefined;
}

function epochMs(value: number | string | undefined, fallback: number): number {
  const ms = typeof value === 'string' ? Date.parse(value) : value;
  return ms !== undefined && Number.isFinite(ms) ? ms : fallback;
}

/**
 * An entry's file as the hub's events: contact creations and email changes, privacy deletions, and
 * the uninstall. The dedupe key is the entry's offset and the event's place in it, so an entry read
 * again (a reader stopped before saving its offset) gives the same keys and the pipeline drops them.
 */
export function parseJournalFile(raw: unknown, portalId: string, offset: string, now = Date.now()): JournalEntry {
  const file = JournalFileSchema.safeParse(raw);
  if (!file.success) return { offset, events: [], uninstalled: false, unread: ['the file: no journalEvents list'] };
  const events: ContactEvent[] = [];
  const unread: string[] = [];
  let uninstalled = false;
  file.data.journalEvents.forEach((rawEvent, index) => {
    const parsed = JournalEventSchema.safeParse(rawEvent);
    if (!parsed.success) return void unread.push(`journalEvents[${index}]: ${parsed.error.issues[0]?.path.join('.') || 'event'}: ${parsed.error.issues[0]?.message ?? 'not an event'}`);
    const e = parsed.data;
    if (e.portalId !== undefined && e.portalId !== portalId) return;
    // The published uninstall: action APP_UNINSTALL, or the app lifecycle event of that type.
    if (e.action === 'APP_UNINSTALL' || e.eventTypeId === APP_UNINSTALL_EVENT_TYPE) return void (uninstalled = true);
    if (e.action === undefined) return void unread.push(`journalEvents[${index}]: no action`);
    if (e.objectTypeId !== '0-1' || e.objectId === undefined) return;
    const base = { platform: 'hubspot', accountId: portalId, contactId: e.objectId, occurredAt: epochMs(e.occurredAt, now), dedupeKey: `hubspot-journal:${portalId}:${offset}:${index}` };
    const email = emailChange(e.propertyChanges);
    if (e.action === 'GDPR_DELETE' || e.subscriptionType === 'GDPR_PRIVACY_DELETION') events.push({ ...base, kind: 'privacy_deletion' });
    else if (e.action === 'CREATE') events.push({ ...base, kind: 'created', ...(email ? { email } : {}) });
    else if (e.action === 'UPDATE' && email) events.push({ ...base, kind: 'email_changed', email });
  });
  return { offset, events, uninstalled, unread };
}

export interface HubSpotJournalOptions {
  portalId: string;
  clientId: string;
  clientSecret: string;
  apiBase: string;
  now?: () => number;
  /** Where answers and events of an unknown shape are reported (with HubSpot's request id). */
  logger?: Logger;
}

/** Reads one portal's local journal, an entry at a time. The token is the app's, never a portal's; it appears in no error. */
export class HubSpotJournal {
  private token?: { value: string; expiresAt: number };

  constructor(private readonly options: HubSpotJournalOptions) {}

  /** The oldest entry the journal still keeps, or undefined when it is empty. */
  earliest(): Promise<JournalEntry | undefined> {
    return this.entry(`${JOURNAL_PATH}/earliest`);
  }

  /** The entry after `offset`, or undefined when there is none yet. Throws `JournalOffsetExpiredError` past the retention. */
  after(offset: string): Promise<JournalEntry | undefined> {
    return this.entry(`${JOURNAL_PATH}/offset/${encodeURIComponent(offset)}/next`);
  }

  private async entry(path: string): Promise<JournalEntry | undefined> {
    const url = `${this.options.apiBase}${path}?installPortalId=${encodeURIComponent(this.options.portalId)}`;
    let response = await this.get(url, await this.accessToken());
    if (response.status === 401) {
      this.token = undefined; // expired early or revoked: one new token, one more try
      response = await this.get(url, await this.accessToken());
    }
    if (response.status === 204) return undefined;
    const raw = await response.text();
    if (response.status === 404 && path.includes('/offset/')) throw new JournalOffsetExpiredError('the saved journal offset is past HubSpot\'s retention (3 days) or unknown', { status: 404 });
    if (!response.ok) throw hubspotErrorFromResponse(response.status, headerBag(response), raw);
    const requestId = response.headers.get('x-hubspot-correlation-id') ?? undefined;
    const answer = this.readAnswer(raw, requestId);
    if (!answer) return undefined;
    // The file's URL is pre-signed (no bearer token goes to it).
    const file = await fetch(answer.url).catch((error: unknown) => {
      throw hubspotNetworkError(error);
    });
    if (!file.ok) throw new HubSpotApiError(`HubSpot journal file answered ${file.status}`, { status: file.status, retryable: file.status >= 500 || file.status === 403 });
    const body: unknown = await file.json().catch(() => undefined);
    const entry = parseJournalFile(body, this.options.portalId, answer.currentOffset, this.now());
    if (entry.unread.length) this.options.logger?.warn({ requestId, offset: entry.offset, unread: entry.unread.slice(0, 20), count: entry.unread.length }, 'HubSpot journal: events of an unknown shape skipped');
    return entry;
  }

  /** `url` and `currentOffset` of an entry answer, each checked; anything else is logged and read as "nothing yet". */
  private readAnswer(raw: string, requestId: string | undefined): { url: string; currentOffset: string } | undefined {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const url = AnswerFields.url.safeParse(fields.url);
    const currentOffset = AnswerFields.currentOffset.safeParse(fields.currentOffset);
    if (url.success && currentOffset.success) return { url: url.data, currentOffset: currentOffset.data };
    const problems = [url.success ? undefined : 'url', currentOffset.success ? undefined : 'currentOffset'].filter(Boolean);
    this.options.logger?.warn({ requestId, missing: problems, members: Object.keys(fields).slice(0, 20) }, 'HubSpot journal answer of an unknown shape (no usable url/currentOffset): read again later');
    return undefined;
  }

  private get(url: string, token: string): Promise<Response> {
    return fetch(url, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } }).catch((error: unknown) => {
      throw hubspotNetworkError(error);
    });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The app's client-credentials token for the journal, kept until a minute before it expires. */
  private async accessToken(): Promise<string> {
    if (this.token && this.token.expiresAt - TOKEN_MARGIN_MS > this.now()) return this.token.value;
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.options.clientId, client_secret: this.options.clientSecret, scope: JOURNAL_SCOPE });
    const response = await fetch(`${this.options.apiBase}/oauth/v1/token`, { method: 'POST', body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }).catch((error: unknown) => {
      throw hubspotNetworkError(error);
    });
    const raw = await response.text();
    if (!response.ok) {
      const error = hubspotErrorFromResponse(response.status, headerBag(response), raw);
      throw response.status === 400 ? new HubSpotAuthError(`HubSpot refused the app's client credentials for the journal (${error.message}); check HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET`, { status: 400 }) : error;
    }
    const tokens = z.looseObject({ access_token: z.string().min(1), expires_in: z.number().positive() }).parse(JSON.parse(raw));
    this.token = { value: tokens.access_token, expiresAt: this.now() + tokens.expires_in * 1000 };
    return this.token.value;
  }
}

function headerBag(response: Response): HeaderBag {
  const headers: HeaderBag = {};
  response.headers.forEach((value, key) => (headers[key.toLowerCase()] = value));
  return headers;
}
