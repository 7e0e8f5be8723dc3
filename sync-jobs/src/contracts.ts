import type { ContactEvent, DisconnectReport, Ledger, RiskAction, SchemaReport, Verification } from '@verify-hub/core';

/**
 * The public contract of the sync pipeline, used by the CLI and the hub service (webhooks-in).
 * Implemented in this package on BullMQ + Redis; the shapes here are what the admin API returns.
 */

export type RunStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';

export interface RunCounters {
  /** Contacts read from the source. */
  pulled: number;
  /** Records the source skipped (no email, unsubscribed, cleaned, unparseable row). */
  skipped: number;
  /** Served from the result cache: no engine call. */
  cached: number;
  /** Verified by the engine now. */
  verified: number;
  unknown: number;
  /** Contacts whose values were written back. */
  written: number;
  /** Contacts whose stored values already matched: no write. */
  unchanged: number;
  failed: number;
  credits: number;
  /** Contacts whose address was rejected locally (empty, no @, too long): written as invalid, no engine call, no credit. */
  rejected?: number;
  /** Records of the source that could not be read at all (a file's broken rows; in `skipped` too): a file run lists them in its rejected-rows file. */
  unreadable?: number;
}

export interface RunOptions {
  dryRun?: boolean;
  /** Stop before spending more than this many credits. */
  maxCredits?: number;
  /** Cached results younger than this are reused (default 30). */
  freshnessDays?: number;
  actions?: { invalid?: RiskAction };
}

export interface StartRunRequest {
  /** `hubspot`, `mailchimp`, `file`, ... */
  platform: string;
  /** The stored connection to use (absent for `file`). */
  connectionId?: string;
  /** `all`, `list:<id>`, `changed-since:<ISO>`, `audience:<id>`, `file:<path>`, ... */
  scope: string;
  options?: RunOptions;
  /** Records the run will read, when the caller already counted them (a file's preview): else the connector is asked. */
  expectedTotal?: number;
  /** The run's name for people (a file run: the file's name as uploaded); else the connector's name of the scope, or the scope in words. */
  name?: string;
}

/** Where a run's contacts come from: an uploaded file, or a connected platform. */
export type RunSource = 'file' | 'platform';

/** Which runs `list` returns: newest first, at most `limit` (50). */
export interface RunListFilter {
  status?: RunStatus;
  source?: RunSource;
  /** Case-insensitive words the run's name (or its connection's label) contains. */
  search?: string;
  limit?: number;
}

export interface RunRecord {
  id: string;
  /** For people: the file's name, or the audience/list and what of it ("Newsletter (changed since ...)"); runs from before names have none (core's `runName` falls back on the scope in words). */
  name?: string;
  platform: string;
  connectionId?: string;
  /** The connection's label when the run started (it may be renamed or removed later). */
  connectionLabel?: string;
  scope: string;
  options: RunOptions;
  status: RunStatus;
  /** Why a run is paused or failed, in words a user can act on (never a secret). */
  statusReason?: string;
  /** For a paused run: when it may resume by itself (quota reset, daily limit), epoch ms. */
  resumeAt?: number;
  cursor?: string;
  counters: RunCounters;
  /** Credits the run is expected to cost (addresses not in the cache), when estimated. */
  estimatedCredits?: number;
  /** Records the run is expected to read, known when it started (a file's rows, a platform's total): the progress denominator. */
  expectedTotal?: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
}

/** One line of a run's per-record report. */
export interface ReportRow {
  contactId: string;
  email: string;
  risk?: Verification['risk'];
  score?: number;
  reason?: string;
  /** `written`, `unchanged`, `failed`, `dry_run`, `skipped` */
  outcome: string;
  error?: string;
  /** A tombstone: the contact was erased for privacy (contact id and email empty); it still counts in the run's totals. */
  erased?: boolean;
}

export interface RunService {
  start(request: StartRunRequest): Promise<RunRecord>;
  get(id: string): Promise<RunRecord | undefined>;
  list(filter?: RunListFilter): Promise<RunRecord[]>;
  /** Cancels a queued, running or paused run; `reason` says why (default: cancelled by a user). */
  cancel(id: string, reason?: string): Promise<RunRecord>;
  /** Resumes a paused run; `maxCredits` raises (or sets) its credit limit first (a run stopped at its limit). */
  resume(id: string, changes?: { maxCredits?: number }): Promise<RunRecord>;
  /** Starts a new run that re-verifies the unknown results of run `id`. */
  recheckUnknowns(id: string): Promise<RunRecord>;
  report(id: string): AsyncIterable<ReportRow>;
  /** A parsed platform webhook event becomes a coalesced single-contact job; duplicates are dropped. */
  enqueueEvent(event: ContactEvent & { connectionId: string }): Promise<{ queued: boolean }>;
  /** Called once when a run reaches completed, failed or cancelled. Returns an unsubscribe function. */
  onRunFinished(listener: (run: RunRecord) => void): () => void;
  /** A user's pause of a queued or running run (statusReason `paused by a user`); `resume` continues it. */
  pause(id: string): Promise<RunRecord>;
  /** The run's results so far by risk and by reason, and its per-record failures (the dashboard's run page). */
  breakdown(id: string): Promise<RunBreakdown>;
}

/** A run's results so far: counts by risk and by reason, and the first per-record failures. */
export interface RunBreakdown {
  /** Rows per final risk: the ledger's safe, risky, invalid and unknown (runs from before the ledger: every report row's risk). */
  risk: Record<Verification['risk'], number>;
  /** The run's one ledger: every contact in exactly one final category (core's LEDGER_CATEGORIES), `total` their sum. */
  ledger: Ledger;
  /** The ledger's unknown contacts by reason code (what the run page's Unknown line says in words when one reason explains them all). */
  unknownReasons: Record<string, number>;
  /** Most frequent first. */
  reasons: { reason: string; count: number }[];
  /** The first 100 report rows whose outcome is `failed`. */
  failures: { contactId: string; email: string; error?: string }[];
  failuresTotal: number;
}

/** What a run would cost now: its contacts, unique addresses, those fresh in the cache, the rest. */
export interface RunEstimate {
  contacts: number;
  unique: number;
  cached: number;
  estimatedCredits: number;
}

/** Work on stored connections that goes through their connector: the credit estimate, ensureSchema. */
export interface ConnectionOperations {
  estimate(request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>): Promise<RunEstimate>;
  /** Creates the write-back fields in the platform (idempotent) and says what it created. */
  ensureSchema(connectionId: string): Promise<SchemaReport>;
  /** Removes what the hub created on the platform for the connection (its webhooks), before the connection is deleted. */
  disconnectPlatform?(connectionId: string): Promise<DisconnectReport>;
}

/** A cron pattern in words, with its next occurrences. */
export interface CronPreview {
  /** "Every Monday at 03:00" (a preset), else cronstrue's words ("Every 15 minutes") */
  description: string;
  /** ISO timestamps of the next occurrences. */
  next: string[];
}

export interface ScheduleView extends RunSchedule {
  paused: boolean;
  description: string;
}

/** Recurring syncs, for the dashboard and the admin API. Bad input throws core's InputError naming the field. */
export interface ScheduleService {
  listSchedules(): Promise<ScheduleView[]>;
  /** Creates or replaces schedule `id` (generated when absent). */
  saveSchedule(input: { id?: string; cron: string; timezone?: string; request: StartRunRequest }): Promise<ScheduleView>;
  pauseSchedule(id: string): Promise<ScheduleView>;
  resumeSchedule(id: string): Promise<ScheduleView>;
  removeSchedule(id: string): Promise<boolean>;
  /** Throws InputError('cron' | 'timezone') for a pattern or zone it cannot read. */
  previewCron(cron: string, timezone?: string, count?: number): CronPreview;
}

// ---------------------------------------------------------------- extensions (additive)

/** Counters the pipeline keeps beside the contract's: pages enqueued and done, re-check outcomes. */
export interface RunProgress {
  pages: number;
  pagesDone: number;
  /** Whether the source has been paged to its end. */
  pagingDone: boolean;
}

/** A recurring run: a job scheduler that starts `request` on a cron pattern. */
export interface RunSchedule {
  id: string;
  cron: string;
  timezone?: string;
  request: StartRunRequest;
  next?: number;
}
