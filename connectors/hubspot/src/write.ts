import { changedValues, type ContactResult, type PlannedAction, type WriteFailure, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { HubSpotApiError } from './errors';
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
 * Writes verification results back as contact properties with one batch update (the pipeline hands at
 * most `writeBatchSize`, HubSpot's 100 inputs, and tries a batch once more), sending only the values
 * that differ from what the contact has (read at pull time): an unchanged re-sync makes no call at
 * all. A 207's per-record errors are reported per contact, `retryable` when HubSpot was busy; a 400 for
 * the whole batch (one bad value fails them all) is split in halves until the bad records are
 * isolated, so the good ones are still written.
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
    if (opts.dryRun || byId.size === 0) return report;
    const outcome = await this.updateBatch([...byId.values()]);
    report.written = outcome.written;
    report.failed.push(...outcome.failed);
    return report;
  }

  private async updateBatch(inputs: UpdateInput[]): Promise<BatchOutcome> {
    const failedAll = (reason: string, retryable: boolean): BatchOutcome => ({ written: 0, failed: inputs.map((input) => ({ contactId: input.id, email: input.email, reason, retryable })) });
    let answer;
    try {
      answer = await this.runner.run('default', () => this.apis().contactsBatch.update({ inputs: inputs.map(({ id, properties }) => ({ id, properties })) }), false);
    } catch (error) {
      if (!(error instanceof HubSpotApiError)) throw error; // auth, daily limit, rate limit, unreachable: the pipeline's to retry or pause on
      // Every record would fail the same way: no splitting, one clear reason.
      if (error.status === 400 && /PROPERTY_DOESNT_EXIST/.test(error.message)) return failedAll(`a verify-hub property is missing in HubSpot: run \`verify-hub hubspot setup\` (${error.message})`, false);
      if (error.status !== 400 || inputs.length === 1) return failedAll(error.message, error.retryable);
      const half = Math.ceil(inputs.length / 2);
      const parts = [await this.updateBatch(inputs.slice(0, half)), await this.updateBatch(inputs.slice(half))];
      return { written: parts[0]!.written + parts[1]!.written, failed: [...parts[0]!.failed, ...parts[1]!.failed] };
    }
    const pending = new Map(inputs.map((input) => [input.id, input]));
    const failed: WriteFailure[] = [];
    let written = 0;
    for (const record of answer.results) if (pending.delete(record.id)) written++;
    for (const error of 'errors' in answer ? answer.errors ?? [] : []) {
      const reason = `${error.category}: ${error.message}`;
      for (const id of error.context?.ids ?? [...pending.keys()]) {
        const input = pending.get(id);
        if (!input) continue;
        pending.delete(id);
        failed.push({ contactId: id, email: input.email, reason, retryable: RETRYABLE_CATEGORIES.has(error.category) });
      }
    }
    // Records HubSpot did not mention at all: worth another attempt.
    for (const input of pending.values()) failed.push({ contactId: input.id, email: input.email, reason: 'not confirmed by HubSpot', retryable: true });
    return { written, failed };
  }
}
