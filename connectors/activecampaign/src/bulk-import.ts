import { RateLimitError, TransientError, sleep, type CallLimiter } from '@verify-hub/core';
import type { ActivecampaignClient } from './api-client';
import { ActivecampaignErrors } from './errors';
import { ImportInfo, ImportQueued } from './responses';

/** The most contacts one bulk import takes (ActiveCampaign's documented maximum). */
export const BULK_IMPORT_LIMIT = 250;

/** One contact of an import: found by address; only fields and a tag, never `subscribe` or `unsubscribe`. */
export interface ImportEntry {
  email: string;
  fields?: { id: number; value: string }[];
  tags?: string[];
}

export interface ImportPolling {
  /** The first wait before the status is read (ActiveCampaign: it may say `false` within a second). */
  initialMs: number;
  maxMs: number;
  timeoutMs: number;
}

export interface ImportOutcome {
  batchId: string;
  /** Addresses ActiveCampaign did not import (lower-cased). */
  failed: Set<string>;
  /** Ids of contacts the import created: an address no contact had any more. */
  created: string[];
}

const FINISHED = new Set(['completed', 'failed', 'interrupted']);

/**
 * Sends one bulk import (`POST /import/bulk_import`) with `exclude_automations: true`, so no automation
 * starts for the contacts it touches, and without `subscribe`/`unsubscribe`, so no list status changes;
 * then reads its status (`GET /import/info`) with a growing wait until it is finished. Reading the
 * status is waiting for the import, not sending it again: a 429 or a 5xx on the status call is waited
 * out until the deadline. `failed` or `interrupted` throws a TransientError: the host tries the batch
 * once more, and a second import of the same values changes nothing.
 */
export async function runBulkImport(client: ActivecampaignClient, importLimiter: CallLimiter, entries: ImportEntry[], polling: ImportPolling): Promise<ImportOutcome> {
  if (entries.length > BULK_IMPORT_LIMIT) throw new RangeError(`at most ${BULK_IMPORT_LIMIT} contacts an import (got ${entries.length})`);
  const queued = await client.call('POST', '/import/bulk_import', ImportQueued, { body: { contacts: entries, exclude_automations: true }, limiter: importLimiter });
  const deadline = Date.now() + polling.timeoutMs;
  let wait = polling.initialMs;
  let info: ImportInfo | undefined;
  let status: string | false = false;
  while (!FINISHED.has(String(status))) {
    if (Date.now() + wait > deadline) {
      throw new ActivecampaignErrors.TransientError(`ActiveCampaign's import ${queued.batchId} was still ${status || 'queued'} after ${Math.round(polling.timeoutMs / 1000)} s`);
    }
    await sleep(wait);
    wait = Math.min(polling.maxMs, Math.round(wait * 1.5));
    try {
      info = await client.call('GET', '/import/info', ImportInfo, { query: { batchId: queued.batchId } });
      status = info.status;
    } catch (error) {
      if (error instanceof RateLimitError) wait = Math.max(wait, error.resetAt - Date.now());
      else if (!(error instanceof TransientError)) throw error;
    }
  }
  if (status !== 'completed') throw new ActivecampaignErrors.TransientError(`ActiveCampaign's import ${queued.batchId} ended ${status}: nothing of it is counted as written`);
  return { batchId: queued.batchId, failed: new Set(info!.failure.map((e) => e.toLowerCase())), created: info!.success };
}
