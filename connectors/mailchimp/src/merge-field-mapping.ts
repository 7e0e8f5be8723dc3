import { checkedOnDay, RISKS, storedScore, type Risk, type Verification } from '@verify-hub/core';

/** What a verification is stored under in a Mailchimp audience; a connection may override each name. */
export interface MailchimpNames {
  riskMergeField: string;
  scoreMergeField: string;
  dateMergeField: string;
  /** Tags are `${tagPrefix}${risk}`: ev-safe, ev-risky, ev-invalid, ev-unknown. */
  tagPrefix: string;
}

export const DEFAULT_MAILCHIMP_NAMES: MailchimpNames = {
  riskMergeField: 'EVRISK',
  scoreMergeField: 'EVSCORE',
  dateMergeField: 'EVDATE',
  tagPrefix: 'ev-',
};

/** Merge field values. EVDATE is the check's calendar date in UTC, `YYYY-MM-DD`. */
export function toMailchimpMergeFields(v: Verification, names: MailchimpNames = DEFAULT_MAILCHIMP_NAMES): Record<string, string | number> {
  return {
    [names.riskMergeField]: v.risk,
    [names.scoreMergeField]: storedScore(v),
    [names.dateMergeField]: checkedOnDay(v),
  };
}

export function riskTagName(risk: Risk, names: MailchimpNames = DEFAULT_MAILCHIMP_NAMES): string {
  return `${names.tagPrefix}${risk}`;
}

export interface TagChange {
  name: string;
  status: 'active' | 'inactive';
}

/** Exactly one active risk tag; the other three set inactive. */
export function toMailchimpTagChanges(v: Verification, names: MailchimpNames = DEFAULT_MAILCHIMP_NAMES): TagChange[] {
  return RISKS.map((risk) => ({ name: riskTagName(risk, names), status: risk === v.risk ? 'active' : 'inactive' }));
}

/** The tag changes still needed, given the tags a member has now (inactive tags a member lacks need no change). */
export function pendingTagChanges(currentTags: readonly string[], desired: readonly TagChange[]): TagChange[] {
  const have = new Set(currentTags);
  return desired.filter((t) => (t.status === 'active' ? !have.has(t.name) : have.has(t.name)));
}
