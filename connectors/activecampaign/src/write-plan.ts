import { changedValues, type ContactResult } from '@verify-hub/core';
import type { ContactPayload } from './contacts';
import { evFieldValues, isRiskTag, riskTag } from './field-mapping';

/** What one contact needs: only the field values that differ, the risk tag it lacks, the risk tags it must lose. */
export interface ContactChange {
  contactId: string;
  email: string;
  /** Changed values by field name (`ev_risk`). */
  fields: Record<string, string>;
  /** The risk tag to add (the contact does not carry it yet). */
  addTag?: string;
  /** Risk tags it carries that no longer hold, with their contactTag ids. */
  removeTags: { name: string; contactTagId: string }[];
}

export interface WritePlan {
  changes: ContactChange[];
  /** Ids of the contacts that already hold every value and exactly the right tag. */
  unchanged: string[];
}

const contactTagsOf = (result: ContactResult) => (result.contact.payload as Partial<ContactPayload> | undefined)?.contactTags;

/**
 * Whether a contact was read from ActiveCampaign, so its stored values and tags are known: its `tags`
 * and, for each risk tag it carries, the contactTag id to remove it by. The host may refresh `current`
 * and `tags` alone (a replayed chunk reads its contacts again), leaving `payload` as first read: a
 * contact whose tags and ids disagree is read again before it is planned.
 */
export function wasRead(result: ContactResult): boolean {
  const ids = contactTagsOf(result);
  if (typeof ids !== 'object' || !Array.isArray(result.contact.tags)) return false;
  return result.contact.tags.every((name) => !isRiskTag(name) || name in ids);
}

/**
 * Pure: decides what each result needs written. A contact carries exactly one risk tag: the one of its
 * result is added when missing, any other `ev-*` tag is removed. Unchanged values are skipped, so an
 * unchanged re-sync writes nothing. Every contact must have been read (`wasRead`).
 */
export function planWrites(results: ContactResult[]): WritePlan {
  const plan: WritePlan = { changes: [], unchanged: [] };
  for (const { contact, verification } of results) {
    // `tags` is what the contact carries now (the host may have refreshed it); the payload gives the ids.
    const ids = (contact.payload as ContactPayload).contactTags;
    const held = (contact.tags ?? []).filter(isRiskTag);
    const wanted = riskTag(verification.risk);
    const fields = changedValues(contact.current, evFieldValues(verification));
    const removeTags = held.filter((name) => name !== wanted).map((name) => ({ name, contactTagId: ids[name]! }));
    const addTag = held.includes(wanted) ? undefined : wanted;
    if (Object.keys(fields).length === 0 && !addTag && removeTags.length === 0) {
      plan.unchanged.push(contact.id);
      continue;
    }
    plan.changes.push({ contactId: contact.id, email: contact.email, fields, ...(addTag ? { addTag } : {}), removeTags });
  }
  return plan;
}
