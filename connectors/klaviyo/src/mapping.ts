import { DEFAULT_VERIFICATION_FIELD_NAMES as EV, SPAM_TRAP_LEVELS, storedScore, type Verification } from '@verify-hub/core';

/**
 * A check that was not made, as Klaviyo stores it. Klaviyo clears a property given `null`, so null
 * cannot say "not checked": a flag is `true`, `false`, or this string, never false for "not checked".
 */
export const NOT_CHECKED = 'not_checked';

const flag = (value: boolean | null | undefined): boolean | string => (value === null || value === undefined ? NOT_CHECKED : value);

/**
 * What Klaviyo stores for a verification, as custom profile properties (they need no creation):
 * `ev_risk`, `ev_reason` (text), `ev_score` (number), `ev_checked_at` (ISO 8601, which Klaviyo reads
 * as a date), the flags `ev_disposable`, `ev_role_account`, `ev_catch_all`, `ev_free_provider`
 * (booleans, or "not_checked"), and `ev_spam_trap_risk` (a level, or "not_checked"). Values read back
 * compare equal to these (core's `changedValues`), so an unchanged profile is not written.
 */
export function klaviyoProperties(v: Verification): Record<string, string | number | boolean> {
  const level = v.checks.spamTrapRisk;
  return {
    [EV.risk]: v.risk,
    [EV.score]: storedScore(v),
    [EV.reason]: v.reason,
    [EV.checkedAt]: new Date(v.checkedAt).toISOString(),
    [EV.disposable]: flag(v.checks.disposable),
    [EV.roleAccount]: flag(v.checks.roleAccount),
    [EV.catchAll]: flag(v.checks.catchAll),
    [EV.freeProvider]: flag(v.checks.freeProvider),
    [EV.spamTrapRisk]: level !== null && (SPAM_TRAP_LEVELS as readonly string[]).includes(level) ? level : NOT_CHECKED,
  };
}

/** The hub's properties as a profile holds them now (what `changedValues` compares with). */
export function storedProperties(properties: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const stored: Record<string, unknown> = {};
  for (const name of Object.values(EV)) if (properties && name in properties) stored[name] = properties[name];
  return stored;
}
