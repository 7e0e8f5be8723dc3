import { changedValues, type ContactResult, type PlannedAction, type WriteFailure, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { HubSpotApiError, HubSpotPartialRetryError } from './errors';
import { BATCH_MAX } from './pull';
import { toHubSpotProperties } from './property-mapping';
import type { HubSpotApis } from './client';
import type { RequestRunner } from './request-runner';
import type { ResolvedSettings } from './settings';

/** Per-record error categories of a 207 worth another attempt: HubSpot was busy, not the data wrong. */
const RETRYABLE_CATEGORIES = new Set(['RATE_LIMITS', 'INTERNAL_ERROR', 'SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'TIMEOUT', 'LOCKED', 'CONCURRENT_MODIFICATION']);

interface UpdateInput {
  id: string;
  email: string;
  properties: Record<string, string>;
}

interface BatchOutcome {
  written: number;
  failed: WriteFailure[];
}

/**
 * Writes verification results back as contact properties with batch update (<= 100 inputs a call),
 * sending only the values that differ from what the contact has (read at pull time): an unchanged
 * re-sync makes no call at all. A 207's per-record errors are retried when HubSpot was busy and
 * reported otherwise; a 400 for the whole batch (one bad value fails them all) is split in halves
 * until the bad records are isolated, so the good ones are still written.
 */
export class ContactWriter {
  constructor(
    private readonly runner: RequestRunner,
    private readonly apis: () => HubSpotApis,
    private readonly settings: ResolvedSettings,
  ) {}

  async write(results: ContactResult[], opts: WriteOptions = {}): Promise<WriteReport> {
    const byId = new Map<string, UpdateInput>();
    const same = new Set<string>();
    const actions: PlannedAction[] = [];
    for (const { contact, verification } of results) {
      const desired = toHubSpotProperties(verification, this.settings.names);
      const changed = changedValues(contact.current, desired);
      if (opts.actions?.invalid && opts.actions.invalid !== 'none' && verification.risk === 'invalid') {
        // HubSpot has no per-contact unsubscribe in the CRM API: the property is the action (a workflow can act on it).
        actions.push({ contactId: contact.id, email: contact.email, action: opts.actions.invalid, applied: false });
      }
      if (Object.keys(changed).length === 0) {
        same.add(contact.id);
        continue;
      }
      byId.set(contact.id, { id: contact.id, email: contact.email, properties: { ...byId.get(contact.id)?.properties, ...changed } });
    }
    // A contact given twice whose second result changes something is written, not unchanged.
    const unchanged = [...same].filter((id) => !byId.has(id));
    const report: WriteReport = { written: 0, unchanged, failed: [], ...(actions.length ? { actions } : {}) };
    if (opts.dryRun) return report;
    const inputs = [...byId.values()];
    for (let i = 0; i < inputs.length; i += BATCH_MAX) {
      const outcome = await this.updateBatch(inputs.slice(i, i + BATCH_MAX));
      report.written += outcome.written;
      report.failed.push(...outcome.failed);
    }
    return report;
  }

  private async updateBatch(inputs: UpdateInput[]): Promise<BatchOutcome> {
    const pending = new Map(inputs.map((input) => [input.id, input]));
    const failed: WriteFailure[] = [];
    let written = 0;
    let lastReason = '';
    try {
      await this.runner.run('default', async () => {
        const answer = await this.apis().contactsBatch.update({ inputs: [...pending.values()].map(({ id, properties }) => ({ id, properties })) });
        for (const record of answer.results) if (pending.delete(record.id)) written++;
        const errors = 'errors' in answer ? answer.errors ?? [] : [];
        for (const error of errors) {
          const reason = `${error.category}: ${error.message}`;
          const ids = error.context?.ids ?? [...pending.keys()];
          for (const id of ids) {
            const input = pending.get(id);
            if (!input) continue;
            if (RETRYABLE_CATEGORIES.has(error.category)) {
              lastReason = reason;
              continue;
            }
            pending.delete(id);
            failed.push({ contactId: id, email: input.email, reason, retryable: false });
          }
        }
        // Still pending: retryable per-record errors, or records HubSpot did not mention at all.
        if (pending.size > 0) throw new HubSpotPartialRetryError(pending.size, lastReason || 'not confirmed by HubSpot');
      });
    } catch (error) {
      const rest = [...pending.values()];
      if (error instanceof HubSpotPartialRetryError) {
        failed.push(...rest.map((input) => ({ contactId: input.id, email: input.email, reason: lastReason || error.reason, retryable: true })));
      } else if (error instanceof HubSpotApiError && error.status === 400 && /PROPERTY_DOESNT_EXIST/.test(error.message)) {
        // Every record would fail the same way: no splitting, one clear reason.
        const reason = `a verify-hub property is missing in HubSpot: run \`verify-hub hubspot setup\` (${error.message})`;
        failed.push(...rest.map((input) => ({ contactId: input.id, email: input.email, reason, retryable: false })));
      } else if (error instanceof HubSpotApiError && error.status === 400 && rest.length > 1) {
        const half = Math.ceil(rest.length / 2);
        for (const part of [rest.slice(0, half), rest.slice(half)]) {
          const outcome = await this.updateBatch(part);
          written += outcome.written;
          failed.push(...outcome.failed);
        }
      } else if (error instanceof HubSpotApiError) {
        failed.push(...rest.map((input) => ({ contactId: input.id, email: input.email, reason: error.message, retryable: error.retryable })));
      } else {
        // Auth, daily limit, exhausted rate limit: the run must pause; the pipeline retries the chunk later.
        throw error;
      }
    }
    return { written, failed };
  }
}
