import type { SchemaReport } from './platform-wire';
import type { RiskAction } from './result-wire';
import type { Verification } from './verification';

/** The contract every platform connector implements (DESIGN.md §4). */

/** What to pull: `all`, `list:<id>`, `segment:<list>:<segment>`, `changed-since:<ISO time>`, ... */
export interface Scope {
  kind: string;
  /** Everything after the first colon, for the connector to read. */
  value?: string;
}

export function parseScope(text: string): Scope {
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  if (colon < 0) return { kind: trimmed };
  return { kind: trimmed.slice(0, colon), value: trimmed.slice(colon + 1) };
}

export function formatScope(scope: Scope): string {
  return scope.value === undefined ? scope.kind : `${scope.kind}:${scope.value}`;
}

export interface Contact {
  /** The platform's id: HubSpot contact id, Mailchimp subscriber hash, file row number. */
  id: string;
  email: string;
  /** The values the hub wrote last time, as the platform has them now (properties, merge fields). */
  current?: Record<string, unknown>;
  /** Tags the member has now (Mailchimp). */
  tags?: string[];
  /** Platform status (for example Mailchimp's subscribed/unsubscribed/cleaned). */
  status?: string;
  /** Source data the connector needs back at write time (a file row's original cells). JSON-serialisable. */
  payload?: unknown;
}

export interface Page {
  contacts: Contact[];
  /** The cursor of the next page; absent on the last page. */
  next?: string;
  /** Records seen but not returned, by reason (for example `no_email`, `unsubscribed`, `cleaned`). */
  skipped?: Record<string, number>;
}

export interface ContactResult {
  contact: Contact;
  verification: Verification;
}

export interface WriteOptions {
  /** Report what would change; change nothing. */
  dryRun?: boolean;
  actions?: { invalid?: RiskAction };
  /** Where the write records what it started on the platform, kept for a replay of the same write (see WriteProgress). */
  progress?: WriteProgress;
}

/**
 * What a write keeps across its replays: a write the host replays (a run's chunk whose worker died)
 * finds what its earlier attempt recorded here, such as a platform bulk job it submitted, and resumes
 * that job instead of submitting the same one again. Kept by the host per chunk, in Redis; absent
 * where a write is not replayed. Keys are the connector's own; values short strings (a job id).
 */
export interface WriteProgress {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface WriteFailure {
  contactId: string;
  email: string;
  reason: string;
  /** Whether another attempt may succeed (rate limit, server error), as opposed to bad data. */
  retryable: boolean;
}

export interface PlannedAction {
  contactId: string;
  email: string;
  action: RiskAction;
  applied: boolean;
}

export interface WriteReport {
  /** Contacts written (or, on a dry run, that would be). */
  written: number;
  /**
   * The ids of the contacts whose stored values already matched: no call made for them. A list, not a
   * count, so a caller can say which rows were left as they were (the per-record report); the count
   * is its length, kept nowhere else so the two cannot disagree. A contact is in at most one of
   * `unchanged` and `failed`; the others of the batch were written.
   */
  unchanged: string[];
  failed: WriteFailure[];
  actions?: PlannedAction[];
}

export interface Connector {
  /** The platform module's id (`definePlatform({ id })`): the connection's `platform`, the route segment. */
  readonly platform: string;
  /** Create fields, groups, merge fields; idempotent; preflights the platform's limits. */
  ensureSchema(): Promise<SchemaReport>;
  pull(scope: Scope, cursor?: string): Promise<Page>;
  /** Batched; reports every record that failed and why. */
  write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport>;
  /** Reads single contacts by platform id (webhook events that carry no email); missing ids are left out. */
  pullByIds?(ids: string[]): Promise<Contact[]>;
  /**
   * Throws an `InputError` naming `scope` when this connector cannot read `scope`: checked when a run
   * is started or scheduled, so a bad scope is refused at once instead of failing the run later.
   */
  checkScope?(scope: Scope): void;
  /**
   * How many records `pull(scope)` will read in all, when the source can say cheaply (a file's row
   * count, a platform's list total): the denominator of a run's progress. Undefined when unknown;
   * an estimate, never a promise (records may come or go while a run pages).
   */
  estimateTotal?(scope: Scope): Promise<number | undefined>;
  /**
   * What `scope` is called in the platform, for naming a run: an audience's or list's name ("Newsletter",
   * "Newsletter (changed since ...)"). Asked once when a run starts, within a few seconds; undefined or a
   * failure means the run is named by its scope in words (core's `scopeInWords`).
   */
  describeScope?(scope: Scope): Promise<string | undefined>;
  /**
   * The connection is being disconnected (or the app uninstalled): remove what the hub created on the
   * platform for it (webhooks). Called before the stored token is deleted; platform-side only.
   */
  disconnect?(): Promise<DisconnectReport>;
  /**
   * Declared by a connector that writes one output through one instance for a whole run (a file: rows
   * in order, then a summary): the pipeline cannot share it between chunk jobs on many workers, so it
   * runs such a run in one job and ends it through this capability.
   */
  readonly singleWriter?: SingleWriter;
}

/** The single-writer capability (see `Connector.singleWriter`). */
export interface SingleWriter {
  /** Closes the output and writes its summary; `credits` is what the run spent in all (its attempts included). */
  finish(overrides?: { credits?: number }): Promise<unknown>;
  /** Drops the unfinished output (a paused or cancelled run: a resume writes it again whole). */
  abort(): Promise<void>;
  /** The run the connector works for (names a re-check's outputs after its run). */
  bindRun?(runId: string): void;
}

/** What a connector removed from its platform when its connection was disconnected, in words for the user. */
export interface DisconnectReport {
  /** Things deleted on the platform, each counted: "1 Mailchimp webhook". */
  deleted: string[];
  /** What was left, and why ("HubSpot's webhook subscriptions belong to the app, not to one connection"). */
  notes?: string[];
}

/** A platform webhook, parsed: what `connectors/<platform>/webhook.ts` returns. */
export interface ContactEvent {
  platform: string;
  /**
   * `privacy_deletion`: the platform erased the contact for privacy (HubSpot `contact.privacyDeletion`,
   * a Mailchimp member deleted); the hub erases every trace of it (cache, run reports, queued jobs).
   */
  kind: 'created' | 'email_changed' | 'unsubscribed' | 'cleaned' | 'profile_updated' | 'privacy_deletion' | (string & {});
  /** Account the event belongs to: HubSpot portal id, Mailchimp list id. */
  accountId: string;
  contactId: string;
  email?: string;
  /** Epoch milliseconds. */
  occurredAt: number;
  /** Same key for the same underlying change, so repeated deliveries are dropped. */
  dedupeKey: string;
}

/**
 * A webhook delivery as received, for the pure `parse(request, secret)` of `connectors/<platform>/webhook.ts`.
 * The receiver keeps the raw body bytes (signatures are computed over them).
 */
export interface RawWebhookRequest {
  method: string;
  /** The full URL the platform called, scheme and host included (HubSpot v2/v3 signatures cover it). */
  url: string;
  /** Header names lower-cased. */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/**
 * A limiter a connector calls through for every platform request. The sync pipeline injects one
 * shared by all workers (Redis-backed); standalone use gets `noLimit`.
 */
export interface CallLimiter {
  schedule<T>(fn: () => Promise<T>): Promise<T>;
}

export const noLimit: CallLimiter = { schedule: (fn) => fn() };
