import type { Ledger, Risk, RiskAction } from './result-wire';

/*
 * The sync pipeline's run and schedule shapes (sync-jobs' contract, DESIGN.md §4), which the admin API
 * answers with. Here rather than in sync-jobs because the dashboard type-checks against them: this
 * file imports nothing but core's other wire files (core/src/wire.ts).
 */

export type RunStatus = 'queued' | 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
/** The statuses a run never leaves. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

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
  /** Records the run will read, when the caller already counted them (a file's preview): else the connector is asked. Not accepted over HTTP. */
  expectedTotal?: number;
  /** The run's name for people (a file run: the file's name as uploaded); else the connector's name of the scope, or the scope in words. Not accepted over HTTP. */
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
  /**
   * Contacts' addresses already verified (or found cached) in pages not yet written and counted: what a
   * progress figure adds to the counters so it moves with the verifications, not once per page.
   */
  checking?: number;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
}

/** A run's results so far: counts by risk and by reason, and the first per-record failures. */
export interface RunBreakdown {
  /** Rows per final risk: the ledger's safe, risky, invalid and unknown (runs from before the ledger: every report row's risk). */
  risk: Record<Risk, number>;
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

/** A cron pattern in words, with its next occurrences. */
export interface CronPreview {
  /** "Every Monday at 03:00" (a preset), else cronstrue's words ("Every 15 minutes") */
  description: string;
  /** ISO timestamps of the next occurrences. */
  next: string[];
}

/** The schedules people pick: every day / week on a day (0 Sunday to 6) / month on a day (1 to 28), at HH:MM. */
export type SchedulePreset =
  | { every: 'day'; time: string }
  | { every: 'week'; weekday: number; time: string }
  | { every: 'month'; day: number; time: string };

/** A recurring run: a job scheduler that starts `request` on a cron pattern. */
export interface RunSchedule {
  id: string;
  cron: string;
  timezone?: string;
  request: StartRunRequest;
  /** Epoch milliseconds of the next start. */
  next?: number;
}

export interface ScheduleView extends RunSchedule {
  paused: boolean;
  description: string;
}
