/*
 * The accuracy report as the hub sends it (GET /api/accuracy, `verify-hub accuracy`): how the verdicts
 * held up on the customer's own sends, from the bounces the platforms report. Dependency-free on purpose
 * (it imports nothing): the dashboard type-checks against these definitions.
 */

/** How a verdict verify-hub held for an address is grouped in the report: its risk, or `not_verified` (no verdict held). */
export const ACCURACY_VERDICTS = ['safe', 'risky', 'unknown', 'invalid', 'not_verified'] as const;
export type AccuracyVerdict = (typeof ACCURACY_VERDICTS)[number];

/** Why a safe, risky or unknown address was judged so, as far as the report splits it. */
export const ACCURACY_REASONS = ['catch_all', 'accept_all', 'role', 'disposable', 'other'] as const;
export type AccuracyReason = (typeof ACCURACY_REASONS)[number];

/** The windows the report is asked for, in days. */
export const ACCURACY_WINDOWS = [30, 90] as const;

/** Counts of distinct addresses (one address counts once per connection, however often it was sent to). */
export interface DeliveryCounts {
  /** Addresses sent to in the window. */
  sent: number;
  /** Of those, addresses the platform reported hard-bounced for the mailbox (not for policy or reputation). */
  hardBounced: number;
  /** Addresses that soft-bounced and never hard-bounced (a full mailbox, a server down): shown, never a verdict's failure. */
  softBounced: number;
  /** Addresses refused for the sender's reputation or content, or reported for abuse: apart, because they say nothing of the mailbox. */
  policy: number;
}

export interface VerdictAccuracy extends DeliveryCounts {
  verdict: AccuracyVerdict;
  /** `hardBounced / sent`, 0 when nothing was sent. */
  hardBounceRate: number;
  /** Safe, risky and unknown split by why they were so judged (catch-all, accept-all provider, role, disposable, other). */
  byReason?: Record<AccuracyReason, DeliveryCounts>;
  /** Invalid only: addresses sent anyway that did not bounce at all (the verdict's other kind of error). */
  notBounced?: number;
}

export interface AccuracyReport {
  /** The connection the report is of; absent for the report over every connection. */
  connectionId?: string;
  days: number;
  /** ISO: the window's start and the time the report was computed. */
  since: string;
  generatedAt: string;
  verdicts: VerdictAccuracy[];
  /** Hard bounces of addresses held safe or risky whose cached verdict was corrected to invalid (reason `hard_bounce`). */
  corrected: number;
}

/** GET /api/accuracy: the report over every connection, then one per connection with bounce data. */
export interface AccuracyAnswer {
  days: number;
  overall: AccuracyReport;
  connections: (AccuracyReport & { connectionId: string; platform: string; label?: string })[];
}
