import { z } from 'zod';
import { changedValues, type Contact, type ContactResult, type PlannedAction, type WriteFailure, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { COLLECTION_SIZE } from './allowance';
import { SalesforceApiError, SalesforceErrors } from './errors';
import { salesforceFieldValues } from './mapping';
import type { SalesforceSession } from './session';
import type { SalesforceSettings } from './settings';

type Value = string | number | boolean | null;
type Target = 'Contact' | 'Lead' | 'Account';

/** One record's changed values, addressed to the object Salesforce updates (a Person Account's contact: its Account). */
interface Update {
  contactId: string;
  email: string;
  object: Target;
  recordId: string;
  fields: Record<string, Value>;
}

/** Per-record error codes worth another attempt: Salesforce was busy, not the data wrong. */
const RETRYABLE_CODES = new Set(['UNABLE_TO_LOCK_ROW', 'SERVER_UNAVAILABLE', 'REQUEST_RUNNING_TOO_LONG']);
/** The whole call refused because a field is missing or invisible to the API user: setup was not run, or its permission set not assigned. */
const MISSING_FIELD_CODES = new Set(['INVALID_FIELD', 'INVALID_FIELD_FOR_INSERT_UPDATE', 'INVALID_TYPE']);
const SETUP_WORDS = 'a verify-hub field is missing or not visible to the API user: run `verify-hub salesforce setup` (it creates the fields and assigns their permission set)';
/** A retried write (the host tries a failed batch once more) skips the records this process has just written with the same values. */
const WRITTEN_MEMORY_MS = 5 * 60_000;
const INGEST_POLL_MS = 500;
const INGEST_TIMEOUT_MS = 10 * 60_000;

const SaveResults = z.array(z.looseObject({ id: z.string().nullish(), success: z.boolean(), errors: z.array(z.looseObject({ statusCode: z.string(), message: z.string() })).default([]) }));

/**
 * Writes verdicts back: only the values that differ from what the record holds, through sObject
 * Collections (`PATCH composite/sobjects`, 200 a call, allOrNone false, every record's own result read),
 * or, above `bulkWriteThreshold` changed records, one Bulk API 2.0 ingest job per object, its
 * successful, failed and unprocessed records read back. Consent (HasOptedOutOfEmail) is only ever
 * set by the `unsubscribe` clean action the user chose.
 */
export class SalesforceWriter {
  private readonly written = new Map<string, { signature: string; at: number }>();

  constructor(
    private readonly session: SalesforceSession,
    private readonly settings: SalesforceSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async write(results: ContactResult[], options: WriteOptions = {}): Promise<WriteReport> {
    const updates = new Map<string, Update>();
    const same = new Set<string>();
    const actions: PlannedAction[] = [];
    for (const { contact, verification } of results) {
      const desired: Record<string, Value> = salesforceFieldValues(verification);
      const action = options.actions?.invalid;
      if (action && action !== 'none' && verification.risk === 'invalid') {
        const field = this.actionField(action);
        if (field) desired[field.name] = field.value;
        actions.push({ contactId: contact.id, email: contact.email, action, applied: field !== undefined && !options.dryRun });
      }
      const changed = changedValues(contact.current, desired);
      if (Object.keys(changed).length === 0) same.add(contact.id);
      else updates.set(contact.id, this.addressed(contact, { ...updates.get(contact.id)?.fields, ...changed }));
    }
    const report: WriteReport = { written: 0, unchanged: [...same].filter((id) => !updates.has(id)), failed: [], ...(actions.length ? { actions } : {}) };
    if (options.dryRun) {
      report.written = updates.size;
      return report;
    }
    const pending = [...updates.values()].filter((update) => !this.justWritten(update));
    report.written += updates.size - pending.length;
    const outcome = pending.length > this.settings.bulkWriteThreshold ? await this.ingest(pending) : await this.collections(pending);
    report.written += outcome.written;
    report.failed.push(...outcome.failed);
    return report;
  }

  /** The clean action's field: `unsubscribe` sets HasOptedOutOfEmail, `archive` the user's status field (when one is set). */
  private actionField(action: string): { name: string; value: Value } | undefined {
    if (action === 'unsubscribe') return { name: 'HasOptedOutOfEmail', value: true };
    if (action === 'archive' && this.settings.invalidStatusField) return { name: this.settings.invalidStatusField, value: this.settings.invalidStatusValue };
    return undefined;
  }

  private addressed(contact: Contact, fields: Record<string, Value>): Update {
    const account = (contact.payload as { personAccount?: unknown } | undefined)?.personAccount;
    if (typeof account === 'string') {
      // A Person Account's contact fields are the Account's `__pc` fields; its opt-out is PersonHasOptedOutOfEmail.
      const onAccount = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name === 'HasOptedOutOfEmail' ? 'PersonHasOptedOutOfEmail' : name.replace(/__c$/, '__pc'), value]));
      return { contactId: contact.id, email: contact.email, object: 'Account', recordId: account, fields: onAccount };
    }
    return { contactId: contact.id, email: contact.email, object: contact.id.startsWith('00Q') ? 'Lead' : 'Contact', recordId: contact.id, fields };
  }

  private signature(update: Update): string {
    return JSON.stringify([update.recordId, update.fields]);
  }

  private justWritten(update: Update): boolean {
    const seen = this.written.get(update.contactId);
    return seen !== undefined && this.now() - seen.at < WRITTEN_MEMORY_MS && seen.signature === this.signature(update);
  }

  private remember(update: Update): void {
    const at = this.now();
    this.written.set(update.contactId, { signature: this.signature(update), at });
    if (this.written.size > 50_000) for (const [id, seen] of this.written) if (at - seen.at >= WRITTEN_MEMORY_MS || this.written.size > 50_000) this.written.delete(id);
  }

  private async collections(updates: Update[]): Promise<{ written: number; failed: WriteFailure[] }> {
    let written = 0;
    const failed: WriteFailure[] = [];
    for (let i = 0; i < updates.length; i += COLLECTION_SIZE) {
      const part = updates.slice(i, i + COLLECTION_SIZE);
      const records = part.map((u) => ({ attributes: { type: u.object }, id: u.recordId, ...u.fields }));
      let answer: z.infer<typeof SaveResults>;
      try {
        answer = SaveResults.parse(await this.session.call((c) => c.requestPatch(`${this.session.dataPath}/composite/sobjects`, { allOrNone: false, records })));
      } catch (error) {
        if (error instanceof SalesforceApiError && MISSING_FIELD_CODES.has(error.errorCode)) {
          failed.push(...updates.slice(i).map((u) => ({ contactId: u.contactId, email: u.email, reason: `${SETUP_WORDS} (${error.message})`, retryable: false })));
          return { written, failed };
        }
        throw error;
      }
      // One result per record, in the order sent.
      part.forEach((update, index) => {
        const result = answer[index];
        if (result?.success) {
          written++;
          this.remember(update);
          return;
        }
        const error = result?.errors[0];
        failed.push({ contactId: update.contactId, email: update.email, reason: error ? `${error.statusCode}: ${error.message}` : 'no result from Salesforce', retryable: !error || RETRYABLE_CODES.has(error.statusCode) });
      });
    }
    return { written, failed };
  }

  /** One Bulk API 2.0 update job per object; each record's outcome from the job's result lists. */
  private async ingest(updates: Update[]): Promise<{ written: number; failed: WriteFailure[] }> {
    let written = 0;
    const failed: WriteFailure[] = [];
    for (const object of ['Contact', 'Lead', 'Account'] as const) {
      const mine = updates.filter((u) => u.object === object);
      if (!mine.length) continue;
      const byRecord = new Map(mine.map((u) => [u.recordId, u]));
      // An empty cell leaves a field as it is in a Bulk update: #N/A clears it.
      const rows = mine.map((u) => ({ Id: u.recordId, ...Object.fromEntries(Object.entries(u.fields).map(([k, v]) => [k, v === null ? '#N/A' : v])) }));
      const results = await this.session.call(async (c) => {
        const job = c.bulk2.createJob({ operation: 'update', object, lineEnding: 'LF' });
        // Failures are thrown by the calls below; without a listener an 'error' event would throw a second time.
        job.on('error', () => undefined);
        await job.open();
        await job.uploadData(rows);
        await job.close();
        // Polled here rather than with job.poll(): a Failed job still reports which records it did.
        for (const started = this.now(); ; ) {
          const { state, errorMessage } = await job.check();
          if (state === 'JobComplete' || state === 'Failed') break;
          if (state === 'Aborted') throw new SalesforceApiError(`Salesforce's Bulk ingest job ${job.id ?? ''} was aborted: ${String(errorMessage ?? '')}`, 'BULK_JOB_ABORTED');
          if (this.now() - started > INGEST_TIMEOUT_MS) throw new SalesforceErrors.TransientError(`Salesforce's Bulk ingest job ${job.id ?? ''} did not finish within ${INGEST_TIMEOUT_MS / 60_000} minutes`);
          await new Promise((resolve) => setTimeout(resolve, INGEST_POLL_MS));
        }
        return job.getAllResults();
      });
      for (const row of results.successfulResults) {
        const update = byRecord.get(String(row.sf__Id));
        if (!update) continue;
        byRecord.delete(update.recordId);
        written++;
        this.remember(update);
      }
      for (const row of results.failedResults) {
        const update = byRecord.get(String((row as Record<string, unknown>).Id ?? row.sf__Id));
        if (!update) continue;
        byRecord.delete(update.recordId);
        const reason = String(row.sf__Error ?? 'refused');
        failed.push({ contactId: update.contactId, email: update.email, reason, retryable: [...RETRYABLE_CODES].some((code) => reason.startsWith(code)) });
      }
      // Unprocessed (the job stopped before them) and anything not listed: worth another attempt.
      for (const update of byRecord.values()) failed.push({ contactId: update.contactId, email: update.email, reason: 'not processed by the Bulk job', retryable: true });
    }
    return { written, failed };
  }
}
