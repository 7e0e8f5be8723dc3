import { DEFAULT_VERIFICATION_FIELD_NAMES, RISKS, verificationFieldValues, type Risk, type Verification, type VerificationFieldNames } from '@verify-hub/core';

/** One custom contact field verify-hub writes: its title and personalization tag in ActiveCampaign. */
export interface EvField {
  /** The name core's mapping gives the value (`ev_risk`): what `Contact.current` is keyed by. */
  name: string;
  title: string;
  perstag: string;
  descript: string;
}

const field = (key: keyof VerificationFieldNames, title: string, descript: string): EvField => ({
  name: DEFAULT_VERIFICATION_FIELD_NAMES[key],
  title,
  perstag: title.toUpperCase().replace(/ /g, '_'),
  descript,
});

/**
 * The fields, all of type text: ActiveCampaign has no number field, and text reads back exactly what
 * was written (a date field would come back in another form), so an unchanged value is never written
 * again. A flag that was not checked is empty, never "false".
 */
export const EV_FIELDS: readonly EvField[] = [
  field('risk', 'EV Risk', 'safe, risky, invalid or unknown: the last email verification (verify-hub)'),
  field('score', 'EV Score', 'Deliverability score 0-100 from the last email verification (verify-hub)'),
  field('reason', 'EV Reason', 'Why the address got its risk, as a code like mailbox_not_found (verify-hub)'),
  field('checkedAt', 'EV Checked At', 'When the address was last verified, ISO 8601 UTC (verify-hub)'),
  field('disposable', 'EV Disposable', 'true, false, or empty when not checked (verify-hub)'),
  field('roleAccount', 'EV Role Account', 'true, false, or empty when not checked (verify-hub)'),
  field('catchAll', 'EV Catch All', 'true, false, or empty when not checked (verify-hub)'),
  field('freeProvider', 'EV Free Provider', 'true, false, or empty when not checked (verify-hub)'),
  field('spamTrapRisk', 'EV Spam Trap Risk', 'low, medium or high, or empty when not checked (verify-hub)'),
];

/** A contact carries exactly one of these: `ev-safe`, `ev-risky`, `ev-invalid`, `ev-unknown`. */
export const riskTag = (risk: Risk): string => `ev-${risk}`;
export const RISK_TAGS: readonly string[] = RISKS.map(riskTag);
export const isRiskTag = (name: string): boolean => RISK_TAGS.includes(name.toLowerCase());

/** The values a verification is stored as, by field name (core's text mapping). */
export const evFieldValues = (verification: Verification): Record<string, string> => verificationFieldValues(verification);
