import { gunzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { extract } from 'tar-stream';
import { z } from 'zod';
import { sleep } from '@verify-hub/core';
import type { BatchOperation, MailchimpApi } from './api';
import { MailchimpBatchError } from './errors';
import { BatchOperationResultSchema, type BatchOperationResult } from './responses';

export interface OperationOutcome {
  statusCode: number;
  /** The operation's answer, parsed from JSON when it is JSON (problem+json for failures). */
  body: unknown;
}

export interface BatchRun {
  batchId: string;
  /** By `operation_id`. An operation missing here was not reported by Mailchimp: treat as failed. */
  outcomes: Map<string, OperationOutcome>;
}

/** Reads a `/batches` results archive: a tar.gz of JSON files, each an array of per-operation results. */
export async function readResultsArchive(archive: Buffer): Promise<BatchOperationResult[]> {
  const results: BatchOperationResult[] = [];
  const tar = extract();
  const done = new Promise<void>((resolve, reject) => {
    tar.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        if (header.type === 'file' && header.name.endsWith('.json')) {
          const parsed = z.array(BatchOperationResultSchema).safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          if (!parsed.success) return reject(new MailchimpBatchError(`batch results file ${header.name} is not a list of operation results`));
          results.push(...parsed.data);
        }
        next();
      });
      stream.on('error', reject);
    });
    tar.on('finish', resolve);
    tar.on('error', reject);
  });
  Readable.from([gunzipSync(archive)]).pipe(tar);
  await done;
  return results;
}

function parseBody(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Runs operations as one Mailchimp batch: starts it, polls its status with a growing interval
 * (pending -> started -> finished) until it finishes or `timeoutMs` passes, then reads every
 * operation's result from the archive. A batch still unfinished at the deadline throws
 * `MailchimpBatchError` naming its id and status (its operations may still run later: they are
 * idempotent field and tag writes).
 */
export async function runBatch(
  api: MailchimpApi,
  operations: BatchOperation[],
  polling: { initialMs: number; maxMs: number; timeoutMs: number },
): Promise<BatchRun> {
  const started = await api.startBatch(operations);
  const deadline = Date.now() + polling.timeoutMs;
  let status = started;
  let interval = polling.initialMs;
  while (status.status !== 'finished') {
    if (Date.now() + interval > deadline) {
      throw new MailchimpBatchError(`Mailchimp batch ${started.id} still ${status.status} after ${polling.timeoutMs / 1000} s`);
    }
    await sleep(interval);
    interval = Math.min(polling.maxMs, Math.round(interval * 1.5));
    status = await api.batchStatus(started.id);
  }
  const outcomes = new Map<string, OperationOutcome>();
  if ((status.total_operations ?? operations.length) > 0) {
    if (!status.response_body_url) throw new MailchimpBatchError(`Mailchimp batch ${started.id} finished without a results archive`);
    const archive = await api.downloadArchive(status.response_body_url);
    let results: BatchOperationResult[];
    try {
      results = await readResultsArchive(archive);
    } catch (e) {
      throw e instanceof MailchimpBatchError ? e : new MailchimpBatchError(`Mailchimp batch ${started.id} results archive cannot be read (${(e as Error).message})`);
    }
    for (const r of results) if (r.operation_id) outcomes.set(r.operation_id, { statusCode: r.status_code, body: parseBody(r.response) });
  }
  return { batchId: started.id, outcomes };
}
