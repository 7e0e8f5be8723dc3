import { PlatformUnreachableError, QuotaError, RateLimitError, TransientError, sleep, type Connector, type ContactResult, type WriteOptions, type WriteReport } from '@verify-hub/core';

/** The longest platform rate-limit wait the write layer waits out itself; a longer one goes to the job layer (which pauses the run). */
export const WRITE_RATE_WAIT_MAX_MS = 10_000;
const TRANSIENT_RETRY_MS = 1_000;

export interface HostWriteOptions {
  /** The most contacts the platform takes in one write (`PlatformModule.writeBatchSize`); default: all at once. */
  writeBatchSize?: number;
  /** The wait before a write is tried again after a transient failure (tests shorten it). */
  transientRetryMs?: number;
}

/**
 * The pipeline's write layer, the one place a platform write is batched and retried: `results` go to
 * `connector.write` in the platform's batches (`writeBatchSize`), so a connector never gets more than
 * the platform takes in one call. Each batch is tried once more, here only, when the platform failed in
 * a way worth it: a thrown RateLimitError (waited out when short; a quota never), TransientError or
 * PlatformUnreachableError (after a short wait), or contacts the connector reported failed as `retryable` (those alone are sent
 * again). What fails again is thrown to the job layer, which retries or pauses the run, or stays
 * reported failed. Used by every write of the pipeline: runs, events, re-checks and bounce corrections.
 */
export async function writeInBatches(connector: Connector, results: ContactResult[], options: WriteOptions, host: HostWriteOptions = {}): Promise<WriteReport> {
  const total: WriteReport = { written: 0, unchanged: [], failed: [] };
  const size = host.writeBatchSize ?? Math.max(results.length, 1);
  for (let at = 0; at < results.length; at += size) {
    const written = await writeOneBatch(connector, results.slice(at, at + size), options, host.transientRetryMs ?? TRANSIENT_RETRY_MS);
    total.written += written.written;
    total.unchanged.push(...written.unchanged);
    total.failed.push(...written.failed);
    if (written.actions) (total.actions ??= []).push(...written.actions);
  }
  return total;
}

async function writeOneBatch(connector: Connector, batch: ContactResult[], options: WriteOptions, transientRetryMs: number): Promise<WriteReport> {
  let first: WriteReport;
  try {
    first = await connector.write(batch, options);
  } catch (error) {
    const wait = retryWaitMs(error, transientRetryMs);
    if (wait === undefined) throw error;
    await sleep(wait);
    return connector.write(batch, options);
  }
  const again = new Set(first.failed.filter((f) => f.retryable).map((f) => f.contactId));
  if (again.size === 0 || options.dryRun) return first;
  await sleep(transientRetryMs);
  let second: WriteReport;
  try {
    second = await connector.write(batch.filter((r) => again.has(r.contact.id)), options);
  } catch (error) {
    // Still busy: the first answer stands (its retryable failures stay reported). A pause (refused
    // credentials, a quota) or anything unforeseen goes to the job layer, as on a first attempt.
    if (retryWaitMs(error, transientRetryMs) !== undefined) return first;
    throw error;
  }
  const retried = <T extends { contactId: string }>(items: T[]) => items.filter((x) => !again.has(x.contactId));
  const actions = [...retried(first.actions ?? []), ...(second.actions ?? [])];
  return {
    written: first.written + second.written,
    unchanged: [...first.unchanged, ...second.unchanged],
    failed: [...retried(first.failed), ...second.failed],
    ...(first.actions || second.actions ? { actions } : {}),
  };
}

/** How long to wait before trying a failed write again, or undefined when it is not this layer's to retry. */
function retryWaitMs(error: unknown, transientRetryMs: number): number | undefined {
  if (error instanceof TransientError || error instanceof PlatformUnreachableError) return transientRetryMs;
  if (error instanceof RateLimitError && !(error instanceof QuotaError)) {
    const wait = error.waitMs(Date.now());
    return wait <= WRITE_RATE_WAIT_MAX_MS ? wait : undefined;
  }
  return undefined;
}
