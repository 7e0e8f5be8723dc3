import { checkedOnDay, storedScore, type Contact, type Verification } from '@verify-hub/core';
import type { Person, PersonPatch } from './api';
import type { FieldKeys } from './settings';

/** The person fields verify-hub keeps, by their names in Pipedrive (DESIGN.md §6) and their types. */
export const PERSON_FIELDS = {
  risk: { name: 'EV risk', type: 'enum' },
  score: { name: 'EV score', type: 'double' },
  reason: { name: 'EV reason', type: 'text' },
  checkedAt: { name: 'EV checked at', type: 'date' },
} as const;
export type FieldName = keyof typeof PERSON_FIELDS;
export const FIELD_NAMES = Object.keys(PERSON_FIELDS) as FieldName[];
/** The risk field's options: one per verdict. */
export const RISK_OPTIONS = ['safe', 'risky', 'invalid', 'unknown'] as const;

/** What verify-hub keeps of a verification, by field, as text that compares equal to what is read back. */
export function verdictValues(v: Verification): Record<FieldName, string> {
  // The day only: Pipedrive's date field has no time, and a same-day check changes nothing.
  return { risk: v.risk, score: String(storedScore(v)), reason: v.reason, checkedAt: checkedOnDay(v) };
}

/** A single-option value as the API answers it: the option's id (a number, or an object with `id`). */
const optionId = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  if (value && typeof value === 'object' && 'id' in value) return optionId((value as { id: unknown }).id);
  return undefined;
};

/** A person's values of our fields, in `verdictValues`' terms (the risk option's label, not its id). */
export function currentValues(person: Person, keys: FieldKeys): Record<FieldName, string | undefined> {
  const fields = person.custom_fields ?? {};
  const labels = new Map(Object.entries(keys.riskOptions).map(([label, id]) => [id, label]));
  const text = (value: unknown) => (value === null || value === undefined ? undefined : String(value));
  const riskId = optionId(fields[keys.risk]);
  return {
    risk: riskId === undefined ? undefined : labels.get(riskId),
    score: text(fields[keys.score]),
    reason: text(fields[keys.reason]),
    checkedAt: text(fields[keys.checkedAt])?.slice(0, 10),
  };
}

/** The changed values as a PATCH body: `custom_fields` by their generated keys, the risk as its option id. */
export function personPatch(changed: Partial<Record<FieldName, string>>, keys: FieldKeys): PersonPatch {
  const customFields: PersonPatch['custom_fields'] = {};
  for (const [field, value] of Object.entries(changed) as [FieldName, string][]) {
    if (field === 'risk') customFields[keys.risk] = keys.riskOptions[value] ?? null;
    else if (field === 'score') customFields[keys.score] = Number(value);
    else customFields[keys[field]] = value;
  }
  return { custom_fields: customFields };
}

/** A secondary address's contact id: `<person id>:address:<n>` (the primary's is the person's id). */
const SECONDARY = /^(\d+):address:(\d+)$/;
export const personIdOf = (contactId: string): number => Number(SECONDARY.exec(contactId)?.[1] ?? contactId);
export const isSecondary = (contactId: string): boolean => SECONDARY.test(contactId);

/**
 * A person as contacts, primary address first: each address is verified; only the primary's verdict
 * is written (the person's fields hold one verdict), so the others carry nothing to compare.
 */
export function personContacts(person: Person, keys: FieldKeys | undefined): Contact[] {
  const addresses = (person.emails ?? []).filter((e) => e.value?.trim());
  const ordered = [...addresses.filter((e) => e.primary), ...addresses.filter((e) => !e.primary)];
  return ordered.map((email, n) =>
    n === 0
      ? { id: String(person.id), email: email.value!.trim(), ...(keys ? { current: currentValues(person, keys) } : {}) }
      : { id: `${person.id}:address:${n}`, email: email.value!.trim() },
  );
}
