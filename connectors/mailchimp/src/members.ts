import { RISKS, type Contact } from '@verify-hub/core';
import { riskTagName, type MailchimpNames } from './merge-field-mapping';
import type { Member } from './responses';

/** Statuses never verified nor touched: counted as skipped. */
export const UNTOUCHABLE_STATUSES = new Set(['unsubscribed', 'cleaned', 'archived']);

/** The members endpoint's `fields`: only what a sync needs (id, address, status, our merge fields, tags). */
export function memberFields(names: MailchimpNames, prefix = 'members.'): string[] {
  return [
    'id',
    'email_address',
    'status',
    `merge_fields.${names.riskMergeField}`,
    `merge_fields.${names.scoreMergeField}`,
    `merge_fields.${names.dateMergeField}`,
    'tags',
  ].map((f) => prefix + f);
}

/**
 * The flag tag: `${tagPrefix}disposable` (ev-disposable) is active while the last verification found a
 * disposable address, and inactive otherwise (false, or not determined: a flag no check supports is not kept).
 */
export function disposableTagName(names: MailchimpNames): string {
  return `${names.tagPrefix}disposable`;
}

/** Every tag the hub writes: the four risk tags and the disposable flag tag. */
export function hubTagNames(names: MailchimpNames): Set<string> {
  return new Set([...RISKS.map((r) => riskTagName(r, names)), disposableTagName(names)]);
}

/** A member as a hub `Contact`: id is the subscriber hash; `current` and `tags` hold only what the hub writes. */
export function toContact(member: Member, names: MailchimpNames): Contact {
  const merge = member.merge_fields ?? {};
  const ours = hubTagNames(names);
  return {
    id: member.id,
    email: member.email_address,
    status: member.status,
    current: {
      [names.riskMergeField]: merge[names.riskMergeField],
      [names.scoreMergeField]: merge[names.scoreMergeField],
      [names.dateMergeField]: merge[names.dateMergeField],
    },
    // Absent when the endpoint did not send tags: the writer then sets all four risk tags and the flag tag.
    tags: member.tags?.map((t) => t.name).filter((name) => ours.has(name)),
  };
}
