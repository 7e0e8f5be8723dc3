import type { ContactEvent, CronPreview, DisconnectReport, RunBreakdown, RunEstimate, RunListFilter, RunRecord, ScheduleView, SchemaReport, StartRunRequest, Verification } from '@verify-hub/core';

// The run and schedule shapes the admin API answers with are core's wire types (core/src/run-wire.ts), so the dashboard compiles against them.
export type {
  CronPreview, RunBreakdown, RunCounters, RunEstimate, RunListFilter, RunOptions, RunRecord, RunSchedule, RunSource, RunStatus, ScheduleView, StartRunRequest,
} from '@verify-hub/core';

/**
 * The public contract of the sync pipeline, used by the CLI and the hub service (webhooks-in).
 * Implemented in this package on BullMQ + Redis; the run and schedule shapes it returns are core's wire types.
 */

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

/** Work on stored connections that goes through their connector: the credit estimate, ensureSchema. */
export interface ConnectionOperations {
  estimate(request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>): Promise<RunEstimate>;
  /** Creates the write-back fields in the platform (idempotent) and says what it created. */
  ensureSchema(connectionId: string): Promise<SchemaReport>;
  /** Removes what the hub created on the platform for the connection (its webhooks), before the connection is deleted. */
  disconnectPlatform?(connectionId: string): Promise<DisconnectReport>;
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
