import { DEFAULT_VERIFICATION_FIELD_NAMES, RISKS, verificationFieldValues, type Verification, type VerificationFieldNames } from '@verify-hub/core';

/** HubSpot's contact properties for a verification: core's neutral fields, under names a connection may override. */
export type HubSpotPropertyNames = VerificationFieldNames;

export const DEFAULT_HUBSPOT_PROPERTY_NAMES: HubSpotPropertyNames = DEFAULT_VERIFICATION_FIELD_NAMES;

export const DEFAULT_HUBSPOT_GROUP = { name: 'email_verification', label: 'Email verification' };

export interface HubSpotPropertyDefinition {
  name: string;
  label: string;
  description: string;
  groupName: string;
  type: 'enumeration' | 'number' | 'string' | 'datetime' | 'bool';
  fieldType: 'select' | 'number' | 'text' | 'date' | 'booleancheckbox';
  options?: { label: string; value: string; displayOrder: number; hidden: boolean }[];
}

const label = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const enumOptions = (values: readonly string[]) => values.map((v, i) => ({ label: label(v), value: v, displayOrder: i, hidden: false }));
const booleanOptions = [
  { label: 'Yes', value: 'true', displayOrder: 0, hidden: false },
  { label: 'No', value: 'false', displayOrder: 1, hidden: false },
];

/** The property definitions `ensureSchema` creates in HubSpot. */
export function hubspotPropertyDefinitions(
  names: HubSpotPropertyNames = DEFAULT_HUBSPOT_PROPERTY_NAMES,
  groupName = DEFAULT_HUBSPOT_GROUP.name,
): HubSpotPropertyDefinition[] {
  const bool = (name: string, text: string, description: string): HubSpotPropertyDefinition => ({
    name, label: text, description, groupName, type: 'bool', fieldType: 'booleancheckbox', options: booleanOptions,
  });
  return [
    { name: names.risk, label: 'Email risk', description: 'safe, risky, invalid or unknown, from the last email verification', groupName, type: 'enumeration', fieldType: 'select', options: enumOptions(RISKS) },
    { name: names.score, label: 'Email score', description: 'Deliverability score 0-100 from the last email verification', groupName, type: 'number', fieldType: 'number' },
    { name: names.reason, label: 'Email verification reason', description: 'Why the address got its risk (for example mailbox_not_found)', groupName, type: 'string', fieldType: 'text' },
    { name: names.checkedAt, label: 'Email checked at', description: 'When the address was last verified', groupName, type: 'datetime', fieldType: 'date' },
    bool(names.disposable, 'Disposable email', 'The domain is a throwaway address provider'),
    bool(names.roleAccount, 'Role account email', 'The address belongs to a role (info@, sales@), not a person'),
    bool(names.catchAll, 'Catch-all domain', 'The domain accepts mail for any address'),
    bool(names.freeProvider, 'Free email provider', 'The address is at a free provider (gmail.com, ...)'),
    { name: names.spamTrapRisk, label: 'Spam-trap risk', description: 'none, low, medium or high', groupName, type: 'enumeration', fieldType: 'select', options: enumOptions(['none', 'low', 'medium', 'high']) },
  ];
}

/** HubSpot property values (all strings, as the API takes them); an undetermined flag is '' (cleared). */
export function toHubSpotProperties(v: Verification, names: HubSpotPropertyNames = DEFAULT_HUBSPOT_PROPERTY_NAMES): Record<string, string> {
  return verificationFieldValues(v, names);
}
