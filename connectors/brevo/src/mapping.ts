import { checkedOnDay, SPAM_TRAP_LEVELS, storedScore, type Verification } from '@verify-hub/core';

/** The attribute types `setup` creates (Brevo's `normal` attribute category). */
export type AttributeType = 'text' | 'float' | 'date';

/** What "not checked" is stored as: a flag the engine did not determine is neither true nor false. */
export const NOT_CHECKED = 'not checked';

/**
 * The contact attributes verify-hub writes, upper-case as Brevo names them. Flags are text (`true`,
 * `false`, `not checked`): a Brevo boolean cannot say "not checked", and an empty value would read as
 * "never verified". EV_CHECKED_AT is a Brevo date (a day, `YYYY-MM-DD`).
 */
export const BREVO_ATTRIBUTES = [
  { name: 'EV_RISK', type: 'text' },
  { name: 'EV_SCORE', type: 'float' },
  { name: 'EV_REASON', type: 'text' },
  { name: 'EV_CHECKED_AT', type: 'date' },
  { name: 'EV_DISPOSABLE', type: 'text' },
  { name: 'EV_ROLE_ACCOUNT', type: 'text' },
  { name: 'EV_CATCH_ALL', type: 'text' },
  { name: 'EV_FREE_PROVIDER', type: 'text' },
  { name: 'EV_SPAM_TRAP_RISK', type: 'text' },
] as const satisfies readonly { name: string; type: AttributeType }[];

export const ATTRIBUTE_NAMES: readonly string[] = BREVO_ATTRIBUTES.map((a) => a.name);

const flag = (value: boolean | null | undefined) => (value === null || value === undefined ? NOT_CHECKED : value ? 'true' : 'false');

/**
 * A verification as Brevo attribute values: numbers as numbers, everything else as text, never empty
 * (so an import never needs `emptyContactsAttributes`, which would erase what it is not given).
 */
export function brevoAttributes(v: Verification): Record<string, string | number> {
  const level = v.checks.spamTrapRisk;
  return {
    EV_RISK: v.risk,
    EV_SCORE: storedScore(v),
    EV_REASON: v.reason,
    EV_CHECKED_AT: checkedOnDay(v),
    EV_DISPOSABLE: flag(v.checks.disposable),
    EV_ROLE_ACCOUNT: flag(v.checks.roleAccount),
    EV_CATCH_ALL: flag(v.checks.catchAll),
    EV_FREE_PROVIDER: flag(v.checks.freeProvider),
    EV_SPAM_TRAP_RISK: level !== null && (SPAM_TRAP_LEVELS as readonly string[]).includes(level) ? level : NOT_CHECKED,
  };
}

/** The verify-hub attributes of a contact as Brevo answered it: what `changedValues` compares with. */
export function currentAttributes(attributes: Record<string, unknown> | undefined): Record<string, unknown> {
  const current: Record<string, unknown> = {};
  for (const name of ATTRIBUTE_NAMES) if (attributes?.[name] !== undefined && attributes[name] !== null) current[name] = attributes[name];
  return current;
}
