import {
  HARD_BOUNCE_REASON,
  changedValues,
  sameStoredValue,
  type ContactResult,
  type RiskAction,
  type Verification,
  type WriteFailure,
  type WriteOptions,
} from '@verify-hub/core';
import { pendingTagChanges, toMailchimpMergeFields, toMailchimpTagChanges, type MailchimpNames, type TagChange } from './merge-field-mapping';
import { UNTOUCHABLE_STATUSES, disposableTagName } from './members';
import { subscriberHash } from './subscriber-hash';

/** What one member needs: only the merge fields whose values differ, only the tag changes still missing. */
export interface MemberChange {
  contactId: string;
  email: string;
  mergeFields: Record<string, string | number>;
  tags: TagChange[];
  /** Opt-in per-risk action; only ever for an `invalid` result. */
  action: RiskAction;
}

export interface WritePlan {
  changes: MemberChange[];
  /** Ids of the members that already hold every value (WriteReport.unchanged). */
  unchanged: string[];
  /** Results the connector refuses to write (a member that is unsubscribed, cleaned or archived). */
  refused: WriteFailure[];
}

/**
 * The tags a result wants: one active risk tag (the other three inactive, core's mapping), and the
 * disposable flag tag, active only when the disposable check said true.
 */
export function desiredTags(verification: Verification, names: MailchimpNames): TagChange[] {
  return [...toMailchimpTagChanges(verification, names), { name: disposableTagName(names), status: verification.checks.disposable === true ? 'active' : 'inactive' }];
}

/**
 * Pure: decides what each result needs written. Unchanged values are skipped (a re-sync with nothing
 * new writes nothing). When the member's tags are not known (the segment endpoint sends none), the
 * hub's tags (risk and flag) are taken as in place when the stored risk merge field already equals the
 * new risk: they are written together, so one stands for the other.
 */
export function planWrites(results: ContactResult[], opts: WriteOptions, names: MailchimpNames): WritePlan {
  const plan: WritePlan = { changes: [], unchanged: [], refused: [] };
  const invalidAction = opts.actions?.invalid ?? 'none';
  for (const { contact, verification } of results) {
    const contactId = contact.id || subscriberHash(contact.email);
    // A member Mailchimp cleaned still gets the verdict its hard bounce proved (fields and tags only, never a status).
    const bounceProof = contact.status === 'cleaned' && verification.reason === HARD_BOUNCE_REASON;
    if (contact.status && UNTOUCHABLE_STATUSES.has(contact.status) && !bounceProof) {
      plan.refused.push({ contactId, email: contact.email, reason: `member is ${contact.status}: never touched`, retryable: false });
      continue;
    }
    const mergeFields = changedValues(contact.current, toMailchimpMergeFields(verification, names));
    const wanted = desiredTags(verification, names);
    let tags: TagChange[];
    if (contact.tags !== undefined) tags = pendingTagChanges(contact.tags, wanted);
    else if (sameStoredValue(contact.current?.[names.riskMergeField], verification.risk)) tags = [];
    else tags = wanted;
    const action: RiskAction = verification.risk === 'invalid' && !bounceProof && (invalidAction === 'unsubscribe' || invalidAction === 'archive') ? invalidAction : 'none';
    if (Object.keys(mergeFields).length === 0 && tags.length === 0 && action === 'none') {
      plan.unchanged.push(contactId);
      continue;
    }
    plan.changes.push({ contactId, email: contact.email, mergeFields, tags, action });
  }
  return plan;
}
