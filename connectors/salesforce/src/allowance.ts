import { z } from 'zod';
import { ALLOWANCE_RETRY_MS, SalesforceErrors } from './errors';
import type { SalesforceSession } from './session';

/** REST query's most records a page (Salesforce's batch size ceiling), and the Bulk 2.0 result page this connector asks for. */
export const REST_PAGE = 2_000;
export const BULK_PAGE = 5_000;
/** sObject Collections' most records a call. */
export const COLLECTION_SIZE = 200;
/** One Bulk 2.0 ingest job: create, upload, close, a status check or two, then successful, failed and unprocessed results. */
const INGEST_JOB_CALLS = 8;
/** One Bulk 2.0 query job: create and a few status checks. */
const QUERY_JOB_CALLS = 4;

const Limits = z.looseObject({ DailyApiRequests: z.looseObject({ Max: z.number(), Remaining: z.number() }) });

/** The API calls reading and writing `records` of one object will take at most (every record changed). */
export function estimateCalls(records: number, settings: { bulkQueryThreshold: number; bulkWriteThreshold: number }): number {
  if (records === 0) return 1;
  const bulkRead = records > settings.bulkQueryThreshold;
  const readCalls = bulkRead ? 1 + QUERY_JOB_CALLS + Math.ceil(Math.max(records - REST_PAGE, 0) / BULK_PAGE) : Math.ceil(records / REST_PAGE);
  const pages = bulkRead ? [REST_PAGE, ...Array<number>(Math.ceil(Math.max(records - REST_PAGE, 0) / BULK_PAGE)).fill(BULK_PAGE)] : Array<number>(Math.ceil(records / REST_PAGE)).fill(REST_PAGE);
  const writeCalls = pages.reduce((sum, size) => sum + (size > settings.bulkWriteThreshold ? INGEST_JOB_CALLS : Math.ceil(size / COLLECTION_SIZE)), 0);
  return readCalls + writeCalls;
}

/** The org's rolling 24-hour allocation as `/limits` says it. */
export async function readAllowance(session: SalesforceSession): Promise<{ max: number; remaining: number }> {
  const answer = Limits.safeParse(await session.call((c) => c.request(`${session.dataPath}/limits`)));
  if (!answer.success) throw new SalesforceErrors.TransientError('Salesforce answered /limits without DailyApiRequests');
  return { max: answer.data.DailyApiRequests.Max, remaining: answer.data.DailyApiRequests.Remaining };
}

/**
 * Before a run pulls: its calls estimated from the records it will read, against what the org has
 * left of its daily allocation less the head-room the user keeps for the org's other integrations.
 * A run that would cut into the head-room pauses now (a QuotaError), before it has used anything.
 */
export function checkAllowance(estimate: number, allowance: { max: number; remaining: number }, headroom: number, now = Date.now()): void {
  if (allowance.remaining - estimate >= headroom) return;
  throw new SalesforceErrors.QuotaError(
    `this run needs about ${estimate} Salesforce API calls; the org has ${allowance.remaining} of its ${allowance.max} daily calls left and ${headroom} are kept for its other integrations (apiHeadroom): the run waits for calls to free up`,
    { resetAt: now + ALLOWANCE_RETRY_MS, remaining: allowance.remaining },
  );
}

/** Between calls: the last answer's `Sforce-Limit-Info` shows the allocation down to the head-room. */
export function checkUsage(usage: { used: number; limit: number } | undefined, headroom: number, now = Date.now()): void {
  if (!usage || usage.limit - usage.used > headroom) return;
  throw new SalesforceErrors.QuotaError(
    `Salesforce API calls are down to the ${headroom} kept for the org's other integrations (${usage.used} of ${usage.limit} used in the last 24 hours): the run waits for calls to free up`,
    { resetAt: now + ALLOWANCE_RETRY_MS, remaining: Math.max(usage.limit - usage.used, 0) },
  );
}
