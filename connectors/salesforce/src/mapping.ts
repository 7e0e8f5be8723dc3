import { RISKS, SPAM_TRAP_LEVELS, verificationFieldValues, type Verification, type VerificationFieldNames } from '@verify-hub/core';

/** The custom fields verify-hub keeps on Contact and Lead, by core's field keys. */
export const SALESFORCE_FIELD_NAMES: VerificationFieldNames = {
  risk: 'EV_Risk__c',
  score: 'EV_Score__c',
  reason: 'EV_Reason__c',
  checkedAt: 'EV_Checked_At__c',
  disposable: 'EV_Disposable__c',
  roleAccount: 'EV_Role_Account__c',
  catchAll: 'EV_Catch_All__c',
  freeProvider: 'EV_Free_Provider__c',
  spamTrapRisk: 'EV_Spam_Trap_Risk__c',
};
export const FIELD_API_NAMES: readonly string[] = Object.values(SALESFORCE_FIELD_NAMES);

/**
 * A flag's "the check was not made": a picklist value of its own, never false (a checkbox cannot
 * tell "no" from "not checked", so flags are picklists).
 */
export const NOT_CHECKED = 'not_checked';
const FLAG_KEYS = ['disposable', 'roleAccount', 'catchAll', 'freeProvider'] as const;
/** Salesforce's Text(255) limit for the reason. */
const REASON_LENGTH = 255;

export type FieldType = 'Picklist' | 'Number' | 'Text' | 'DateTime';
export interface FieldDefinition {
  name: string;
  label: string;
  description: string;
  type: FieldType;
  /** Picklist values: API value and label. */
  values?: { value: string; label: string }[];
}

const picklist = (values: readonly string[], label: (v: string) => string = (v) => v.charAt(0).toUpperCase() + v.slice(1)) => values.map((value) => ({ value, label: label(value) }));
const flagValues = picklist(['true', 'false', NOT_CHECKED], (v) => (v === 'true' ? 'Yes' : v === 'false' ? 'No' : 'Not checked'));

/** The custom fields `setup` creates on Contact and on Lead (the same nine on each). */
export function fieldDefinitions(names: VerificationFieldNames = SALESFORCE_FIELD_NAMES): FieldDefinition[] {
  const flag = (key: (typeof FLAG_KEYS)[number], label: string, description: string): FieldDefinition => ({ name: names[key], label, description, type: 'Picklist', values: flagValues });
  return [
    { name: names.risk, label: 'Email risk', description: 'safe, risky, invalid or unknown, from the last email verification', type: 'Picklist', values: picklist(RISKS) },
    { name: names.score, label: 'Email score', description: 'Deliverability score 0-100 from the last email verification', type: 'Number' },
    { name: names.reason, label: 'Email verification reason', description: 'Why the address got its risk (for example mailbox_not_found)', type: 'Text' },
    { name: names.checkedAt, label: 'Email checked at', description: 'When the address was last verified', type: 'DateTime' },
    flag('disposable', 'Disposable email', 'The domain is a throwaway address provider (Not checked: the check was not made)'),
    flag('roleAccount', 'Role account email', 'The address belongs to a role (info@, sales@), not a person'),
    flag('catchAll', 'Catch-all domain', 'The domain accepts mail for any address'),
    flag('freeProvider', 'Free email provider', 'The address is at a free provider'),
    { name: names.spamTrapRisk, label: 'Spam-trap risk', description: 'none, low, medium or high', type: 'Picklist', values: picklist(SPAM_TRAP_LEVELS) },
  ];
}

/**
 * A verification as the values Salesforce stores: numbers as numbers, the time as an instant, an
 * undetermined flag as `not_checked`, no spam-trap level as null (cleared). Read back through SOQL
 * they compare equal (core's sameStoredValue), so an unchanged record is not written again.
 */
export function salesforceFieldValues(verification: Verification, names: VerificationFieldNames = SALESFORCE_FIELD_NAMES): Record<string, string | number | null> {
  const text = verificationFieldValues(verification, names);
  const values: Record<string, string | number | null> = { ...text, [names.score]: Number(text[names.score]), [names.reason]: text[names.reason]!.slice(0, REASON_LENGTH) };
  for (const key of FLAG_KEYS) if (text[names[key]] === '') values[names[key]] = NOT_CHECKED;
  if (text[names.spamTrapRisk] === '') values[names.spamTrapRisk] = null;
  return values;
}
