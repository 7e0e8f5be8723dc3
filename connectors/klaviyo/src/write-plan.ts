import { DEFAULT_VERIFICATION_FIELD_NAMES as EV, changedValues, type ContactResult, type PlannedAction, type WriteOptions } from '@verify-hub/core';
import type { ProfileUpdate } from './api';
import { klaviyoProperties } from './mapping';

/** What one batch needs: the properties that changed per profile, the addresses to suppress. */
export interface WritePlan {
  updates: ProfileUpdate[];
  /** Ids of the profiles that already hold every value (WriteReport.unchanged). */
  unchanged: string[];
  /** Invalid addresses to suppress: only when the user chose the clean action (`actions.invalid: unsubscribe`). */
  suppress: PlannedAction[];
}

/**
 * Pure: decides what each result needs. Only changed properties are sent (a re-sync with nothing new
 * sends nothing). The clean action for an invalid address is Klaviyo's suppression, and only on the
 * user's choice: `unsubscribe` is carried out as a suppression (no subscription is ever changed, and a
 * suppression never lifts one); `archive` has no Klaviyo counterpart and is never applied.
 */
export function planWrites(results: ContactResult[], options: WriteOptions): WritePlan {
  const plan: WritePlan = { updates: [], unchanged: [], suppress: [] };
  const suppressInvalid = options.actions?.invalid === 'unsubscribe';
  for (const { contact, verification } of results) {
    const properties = changedValues(contact.current, klaviyoProperties(verification));
    // An inconclusive check repeated (unknown, for the same reason) is not news: its new time alone is not written.
    if (verification.risk === 'unknown' && Object.keys(properties).every((name) => name === EV.checkedAt)) delete properties[EV.checkedAt];
    const suppress = suppressInvalid && verification.risk === 'invalid';
    if (suppress) plan.suppress.push({ contactId: contact.id, email: contact.email, action: 'unsubscribe', applied: false });
    if (Object.keys(properties).length > 0) plan.updates.push({ id: contact.id, email: contact.email, properties });
    else if (!suppress) plan.unchanged.push(contact.id);
  }
  return plan;
}

/** Klaviyo's limits of one bulk import job: 10,000 profiles and 5 MB of payload. */
export const IMPORT_JOB_MAX_PROFILES = 10_000;
export const IMPORT_JOB_MAX_BYTES = 5 * 1024 * 1024;
/** Room left in a job's payload for its envelope. */
const ENVELOPE_BYTES = 1024;

/** Splits updates into jobs within both limits, measuring each profile as it will be sent. */
export function importJobs(updates: ProfileUpdate[]): ProfileUpdate[][] {
  const jobs: ProfileUpdate[][] = [];
  let current: ProfileUpdate[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const update of updates) {
    const size = Buffer.byteLength(JSON.stringify({ type: 'profile', id: update.id, attributes: { email: update.email, properties: update.properties } })) + 1;
    if (current.length > 0 && (current.length >= IMPORT_JOB_MAX_PROFILES || bytes + size > IMPORT_JOB_MAX_BYTES)) {
      jobs.push(current);
      current = [];
      bytes = ENVELOPE_BYTES;
    }
    current.push(update);
    bytes += size;
  }
  if (current.length) jobs.push(current);
  return jobs;
}
