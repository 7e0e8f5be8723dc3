import type { PlannedAction, WriteFailure, WriteReport } from '@verify-hub/core';
import type { BatchOperation, BatchSubscribeMember, MailchimpApi } from './api';
import { runBatch, type BatchRun } from './batch-runner';
import type { ResolvedSettings } from './connection-settings';
import { MailchimpAuthError, MailchimpError, errorFromProblem, mailchimpErrorFrom, retryableLater } from './errors';
import { BatchSubscribeResultSchema, type BatchSubscribeResult } from './responses';
import type { MemberChange, WritePlan } from './write-plan';

/**
 * Mailchimp's batch subscribe/update endpoint takes at most 500 members per call: the module's
 * `writeBatchSize`, so the pipeline never hands `write` more and one call (or one operation) holds them all.
 */
export const BATCH_SUBSCRIBE_LIMIT = 500;

export interface MailchimpWriteReport extends WriteReport {
  /** Every member change made (or, in a dry run, that would be made): merge fields, tags, action. */
  changes: MemberChange[];
  /** The `/batches` ids used, for support questions. */
  batchIds: string[];
}

class Failures {
  readonly byId = new Map<string, WriteFailure>();
  add(change: MemberChange, reason: string, retryable: boolean) {
    if (!this.byId.has(change.contactId)) this.byId.set(change.contactId, { contactId: change.contactId, email: change.email, reason, retryable });
  }
  addError(change: MemberChange, error: MailchimpError) {
    this.add(change, error.message, retryableLater(error));
  }
  has(change: MemberChange) {
    return this.byId.has(change.contactId);
  }
}

function subscribeMembers(changes: MemberChange[]): BatchSubscribeMember[] {
  // status_if_new and no status: an existing member's status is never changed (never resubscribed).
  return changes.map((c) => ({ email_address: c.email, status_if_new: 'unsubscribed', merge_fields: c.mergeFields }));
}

/** Per-member outcome of one batch subscribe/update call, answered directly or read from a batch archive. */
function applySubscribeResult(changes: MemberChange[], result: BatchSubscribeResult, failures: Failures) {
  const byEmail = new Map(changes.map((c) => [c.email.toLowerCase(), c]));
  for (const e of result.errors) {
    const change = e.email_address ? byEmail.get(e.email_address.toLowerCase()) : undefined;
    const reason = `Mailchimp refused the merge fields: ${e.error}${e.error_code ? ` (${e.error_code})` : ''}`;
    if (change) failures.add(change, reason, false);
    else for (const c of changes) failures.add(c, reason, false); // an error naming no member concerns them all
  }
  for (const m of result.new_members) {
    const change = byEmail.get(m.email_address.toLowerCase());
    if (change) failures.add(change, 'member was no longer in the audience; Mailchimp added the address back as unsubscribed', false);
  }
}

function fail(changes: MemberChange[], error: unknown, failures: Failures, operation: string) {
  const e = mailchimpErrorFrom(error, operation);
  if (e instanceof MailchimpAuthError) throw e; // the connection itself is broken: the run pauses
  for (const c of changes) failures.addError(c, e);
}

function outcomeError(run: BatchRun, operationId: string, operation: string): MailchimpError | undefined {
  const outcome = run.outcomes.get(operationId);
  if (!outcome) return new MailchimpError(`Mailchimp batch ${run.batchId} reported no result for ${operation}`);
  if (outcome.statusCode >= 200 && outcome.statusCode < 300) return undefined;
  return errorFromProblem(outcome.statusCode, outcome.body, operation);
}

/**
 * Writes a plan: merge fields through one batch subscribe/update (the pipeline's batch: <= 500 members,
 * `update_existing`, never a status), one active risk tag through the tags endpoint with
 * `is_syncing` (so automations don't fire). Up to `smallWriteLimit` members go as direct calls;
 * larger writes go as one `/batches` job, polled to completion, every operation's result read from
 * the archive. Opt-in actions (unsubscribe, archive) run afterwards, for members whose fields and
 * tags were written. Every member that failed is reported with Mailchimp's reason.
 */
export async function executePlan(api: MailchimpApi, listId: string, plan: WritePlan, dryRun: boolean, settings: ResolvedSettings): Promise<MailchimpWriteReport> {
  const withAction = plan.changes.filter((c) => c.action !== 'none');
  if (dryRun) {
    return {
      written: 0,
      unchanged: plan.unchanged,
      failed: [...plan.refused],
      actions: withAction.map((c) => ({ contactId: c.contactId, email: c.email, action: c.action, applied: false })),
      changes: plan.changes,
      batchIds: [],
    };
  }
  const failures = new Failures();
  const batchIds: string[] = [];
  const fieldChanges = plan.changes.filter((c) => Object.keys(c.mergeFields).length > 0);
  const tagChanges = plan.changes.filter((c) => c.tags.length > 0);
  const touched = plan.changes.filter((c) => Object.keys(c.mergeFields).length > 0 || c.tags.length > 0);
  const fields = fieldChanges.length > 0;

  if (touched.length > 0 && touched.length <= settings.smallWriteLimit) {
    await Promise.all([
      fields &&
        api.batchSubscribe(listId, subscribeMembers(fieldChanges)).then(
          (result) => applySubscribeResult(fieldChanges, result, failures),
          (error) => fail(fieldChanges, error, failures, 'batch update members'),
        ),
      ...tagChanges.map((c) =>
        api.updateTags(listId, c.contactId, { tags: c.tags, is_syncing: true }).then(
          () => undefined,
          (error) => fail([c], error, failures, 'update member tags'),
        ),
      ),
    ]);
  } else if (touched.length > 0) {
    const operations: BatchOperation[] = [
      ...(fields ? [{ method: 'POST' as const, path: `/lists/${listId}`, body: JSON.stringify({ members: subscribeMembers(fieldChanges), update_existing: true }), operation_id: 'fields' }] : []),
      ...tagChanges.map((c) => ({
        method: 'POST' as const,
        path: `/lists/${listId}/members/${c.contactId}/tags`,
        body: JSON.stringify({ tags: c.tags, is_syncing: true }),
        operation_id: `tags-${c.contactId}`,
      })),
    ];
    let run: BatchRun | undefined;
    try {
      run = await runBatch(api, operations, settings.batchPolling);
      batchIds.push(run.batchId);
    } catch (error) {
      fail(touched, error, failures, 'batch write');
    }
    if (run && fields) {
      const error = outcomeError(run, 'fields', 'batch update members');
      const parsed = BatchSubscribeResultSchema.safeParse(run.outcomes.get('fields')?.body);
      if (error) fieldChanges.forEach((c) => failures.addError(c, error));
      else if (!parsed.success) fieldChanges.forEach((c) => failures.add(c, `Mailchimp batch ${run.batchId}: unreadable batch update result`, true));
      else applySubscribeResult(fieldChanges, parsed.data, failures);
    }
    if (run) {
      for (const c of tagChanges) {
        const error = outcomeError(run, `tags-${c.contactId}`, 'update member tags');
        if (error) failures.addError(c, error);
      }
    }
  }

  const actions = await runActions(api, listId, withAction.filter((c) => !failures.has(c)), failures, settings, batchIds);
  for (const c of withAction) if (failures.has(c) && !actions.some((a) => a.contactId === c.contactId)) actions.push({ contactId: c.contactId, email: c.email, action: c.action, applied: false });
  return {
    written: touched.filter((c) => !failures.has(c)).length,
    unchanged: plan.unchanged,
    failed: [...plan.refused, ...failures.byId.values()],
    actions,
    changes: plan.changes,
    batchIds,
  };
}

async function runActions(api: MailchimpApi, listId: string, changes: MemberChange[], failures: Failures, settings: ResolvedSettings, batchIds: string[]): Promise<PlannedAction[]> {
  const applied = new Set<string>();
  if (changes.length > 0 && changes.length <= settings.smallWriteLimit) {
    await Promise.all(
      changes.map((c) =>
        (c.action === 'archive' ? api.archive(listId, c.contactId) : api.unsubscribe(listId, c.contactId)).then(
          () => applied.add(c.contactId),
          (error) => fail([c], error, failures, `${c.action} member`),
        ),
      ),
    );
  } else if (changes.length > 0) {
    const operations: BatchOperation[] = changes.map((c) =>
      c.action === 'archive'
        ? { method: 'DELETE', path: `/lists/${listId}/members/${c.contactId}`, operation_id: `action-${c.contactId}` }
        : { method: 'PATCH', path: `/lists/${listId}/members/${c.contactId}`, body: JSON.stringify({ status: 'unsubscribed' }), operation_id: `action-${c.contactId}` },
    );
    try {
      const run = await runBatch(api, operations, settings.batchPolling);
      batchIds.push(run.batchId);
      for (const c of changes) {
        const error = outcomeError(run, `action-${c.contactId}`, `${c.action} member`);
        if (error) failures.addError(c, error);
        else applied.add(c.contactId);
      }
    } catch (error) {
      fail(changes, error, failures, 'batch actions');
    }
  }
  return changes.map((c) => ({ contactId: c.contactId, email: c.email, action: c.action, applied: applied.has(c.contactId) }));
}
