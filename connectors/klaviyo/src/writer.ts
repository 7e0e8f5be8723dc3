import { RateLimitError, TransientError, credentialsRefused, type PlannedAction, type WriteFailure, type WriteReport } from '@verify-hub/core';
import type { KlaviyoApi, ProfileUpdate } from './api';
import { KlaviyoErrors } from './errors';
import type { ImportError, ImportJob, SuppressJob } from './responses';
import { importJobs, type WritePlan } from './write-plan';

/** How long a job is followed before the batch is given back to the host as transient (it may still finish: a replay compares values). */
const JOB_DEADLINE_MS = 10 * 60_000;
/** Klaviyo's suppression job takes at most 100 addresses. */
export const SUPPRESS_JOB_MAX = 100;

export interface JobPolling {
  intervalMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface KlaviyoWriteReport extends WriteReport {
  /** The bulk import jobs made (ids), for support questions. */
  importJobIds: string[];
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Follows a job until Klaviyo says it is complete or cancelled. */
async function finished<J extends ImportJob | SuppressJob>(read: () => Promise<J>, first: J, polling: JobPolling): Promise<J> {
  const deadline = Date.now() + JOB_DEADLINE_MS;
  let job = first;
  while (job.attributes.status === 'queued' || job.attributes.status === 'processing') {
    if (Date.now() > deadline) throw new KlaviyoErrors.TransientError(`Klaviyo job ${job.id} had not finished after ${JOB_DEADLINE_MS / 60_000} minutes`);
    await (polling.sleep ?? wait)(polling.intervalMs);
    job = await read();
  }
  return job;
}

/** Every import error of a job, each tied to the profile its original payload names (by id, else by address). */
async function readImportErrors(api: KlaviyoApi, jobId: string): Promise<ImportError[]> {
  const errors: ImportError[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.importErrors(jobId, cursor);
    errors.push(...page.errors);
    cursor = page.next;
  } while (cursor);
  return errors;
}

function profileOf(error: ImportError, byId: Map<string, ProfileUpdate>, byEmail: Map<string, ProfileUpdate>): ProfileUpdate | undefined {
  const payload = error.attributes.original_payload ?? {};
  const attributes = (payload.attributes ?? payload) as Record<string, unknown>;
  const id = typeof payload.id === 'string' ? payload.id : undefined;
  const email = typeof attributes.email === 'string' ? attributes.email.toLowerCase() : undefined;
  return (id ? byId.get(id) : undefined) ?? (email ? byEmail.get(email) : undefined);
}

/** One import job: sent, followed to its end, its per-profile errors read. Returns the failures. */
async function runImportJob(api: KlaviyoApi, updates: ProfileUpdate[], polling: JobPolling, jobIds: string[]): Promise<WriteFailure[]> {
  const fail = (reason: string, retryable: boolean, which = updates) => which.map((u) => ({ contactId: u.id, email: u.email, reason, retryable }));
  const first = await api.createImportJob(updates);
  jobIds.push(first.id);
  const job = await finished(() => api.importJob(first.id), first, polling);
  if (job.attributes.status === 'cancelled') return fail(`Klaviyo cancelled import job ${job.id}`, true);
  if (!job.attributes.failed_count) return [];
  const byId = new Map(updates.map((u) => [u.id, u]));
  const byEmail = new Map(updates.map((u) => [u.email.toLowerCase(), u]));
  const failures = new Map<string, WriteFailure>();
  let unnamed = 0;
  for (const error of await readImportErrors(api, job.id)) {
    const update = profileOf(error, byId, byEmail);
    if (!update) unnamed++;
    else if (!failures.has(update.id)) failures.set(update.id, fail(`Klaviyo refused the properties: ${error.attributes.title}: ${error.attributes.detail}`, false, [update])[0]!);
  }
  // Failures Klaviyo did not tie to a profile leave every other profile of the job in doubt: tried again.
  if (unnamed > 0 || failures.size < job.attributes.failed_count) {
    return [...failures.values(), ...fail(`Klaviyo import job ${job.id} reported ${job.attributes.failed_count} failed profiles without naming them all`, true, updates.filter((u) => !failures.has(u.id)))];
  }
  return [...failures.values()];
}

/**
 * Writes a plan: the changed properties through profile bulk import jobs (within 10,000 profiles and
 * 5 MB each), each followed until Klaviyo finishes it and its per-profile import errors read; then, on
 * the user's choice only, Klaviyo's suppression of the invalid addresses (bulk suppress jobs of 100).
 * A refused credential stops the batch (the run pauses); a rate limit or Klaviyo trouble goes back to
 * the host, which tries the batch again (a replay sends only what is still different).
 */
export async function executePlan(api: KlaviyoApi, plan: WritePlan, dryRun: boolean, polling: JobPolling): Promise<KlaviyoWriteReport> {
  if (dryRun) return { written: plan.updates.length, unchanged: plan.unchanged, failed: [], actions: plan.suppress, importJobIds: [] };
  const importJobIds: string[] = [];
  const failed: WriteFailure[] = [];
  for (const job of importJobs(plan.updates)) failed.push(...(await runImportJob(api, job, polling, importJobIds)));
  const failedIds = new Set(failed.map((f) => f.contactId));
  const actions = await suppress(api, plan.suppress, polling);
  return { written: plan.updates.filter((u) => !failedIds.has(u.id)).length, unchanged: plan.unchanged, failed, actions, importJobIds };
}

/**
 * The suppression jobs. A refused credential, a rate limit or Klaviyo trouble goes to the host (the
 * batch is tried again: its properties then compare unchanged, and the suppression is sent again,
 * which Klaviyo skips for an address already suppressed); a refused job is reported as not applied.
 */
async function suppress(api: KlaviyoApi, planned: PlannedAction[], polling: JobPolling): Promise<PlannedAction[]> {
  const done: PlannedAction[] = [];
  for (let i = 0; i < planned.length; i += SUPPRESS_JOB_MAX) {
    const part = planned.slice(i, i + SUPPRESS_JOB_MAX);
    try {
      const first = await api.createSuppressJob(part.map((p) => p.email));
      const job = await finished(() => api.suppressJob(first.id), first, polling);
      done.push(...part.map((p) => ({ ...p, applied: job.attributes.status === 'complete' })));
    } catch (error) {
      if (credentialsRefused(error) || error instanceof RateLimitError || error instanceof TransientError) throw error;
      done.push(...part.map((p) => ({ ...p, applied: false })));
    }
  }
  return done;
}
