import { createHash } from 'node:crypto';
import { RateLimitError, TransientError, sleep, type CallLimiter, type WriteProgress } from '@verify-hub/core';
import type { ActivecampaignClient } from './api-client';
import { ActivecampaignErrors, ActivecampaignNotFoundError } from './errors';
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
 *
 * With the host's `progress`, the import's batch id is kept under the entries it carries once it is
 * queued: a replay of the write (its worker died while the import waited to be applied, so the contacts
 * read again still need the same values) finds it and waits for that import instead of sending it again.
 * An import that ended without being applied, or that ActiveCampaign no longer knows, is forgotten.
 */
export async function runBulkImport(client: ActivecampaignClient, importLimiter: CallLimiter, entries: ImportEntry[], polling: ImportPolling, progress?: WriteProgress): Promise<ImportOutcome> {
  if (entries.length > BULK_IMPORT_LIMIT) throw new RangeError(`at most ${BULK_IMPORT_LIMIT} contacts an import (got ${entries.length})`);
  const name = progressName(entries);
  const submitted = await progress?.get(name);
  if (submitted) {
    try {
      return await awaitImport(client, submitted, polling);
    } catch (error) {
      if (!(error instanceof ActivecampaignNotFoundError || error instanceof ImportEndedError)) throw error;
      await progress!.delete(name);
      if (error instanceof ImportEndedError) throw error;
      // Not known any more (long gone): nothing says it was applied, so it is sent again below.
    }
  }
  const queued = await client.call('POST', '/import/bulk_import', ImportQueued, { body: { contacts: entries, exclude_automations: true }, limiter: importLimiter });
  await progress?.set(name, queued.batchId);
  try {
    return await awaitImport(client, queued.batchId, polling);
  } catch (error) {
    if (error instanceof ImportEndedError) await progress?.delete(name);
    throw error;
  }
}

/** The progress key of an import: its entries, hashed (a replay plans the same entries for contacts still unchanged). */
function progressName(entries: ImportEntry[]): string {
  return `activecampaign-import:${createHash('sha256').update(JSON.stringify(entries)).digest('base64url')}`;
}

/** An import that ActiveCampaign ended `failed` or `interrupted`: nothing of it applied, to be sent again. */
class ImportEndedError extends ActivecampaignErrors.TransientError {}

/** Reads the status of import `batchId` with a growing wait until it is finished. */
async function awaitImport(client: ActivecampaignClient, batchId: string, polling: ImportPolling): Promise<ImportOutcome> {
  const deadline = Date.now() + polling.timeoutMs;
  let wait = polling.initialMs;
  let info: ImportInfo | undefined;
  let status: string | false = false;
  while (!FINISHED.has(String(status))) {
    if (Date.now() + wait > deadline) {
      throw new ActivecampaignErrors.TransientError(`ActiveCampaign's import ${batchId} was still ${status || 'queued'} after ${Math.round(polling.timeoutMs / 1000)} s`);
    }
    await sleep(wait);
    wait = Math.min(polling.maxMs, Math.round(wait * 1.5));
    try {
      info = await client.call('GET', '/import/info', ImportInfo, { query: { batchId } });
      status = info.status;
    } catch (error) {
      if (error instanceof RateLimitError) wait = Math.max(wait, error.resetAt - Date.now());
      else if (!(error instanceof TransientError)) throw error;
    }
  }
  if (status !== 'completed') throw new ImportEndedError(`ActiveCampaign's import ${batchId} ended ${status}: nothing of it is counted as written`);
  return { batchId, failed: new Set(info!.failure.map((e) => e.toLowerCase())), created: info!.success };
}
