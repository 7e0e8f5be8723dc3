import type { Verification } from './verification';
import { SPAM_TRAP_LEVELS } from './verification';

/**
 * Platform-neutral pieces of writing a `Verification` back (DESIGN.md §6). Each platform's mapping
 * (HubSpot properties, Mailchimp merge fields and tags, file columns) lives in its connector folder
 * and is built from these, so values read back compare equal to values written and unchanged writes
 * can be skipped.
 */

/** The verification fields a text store (CRM properties, file columns) keeps, by the name each is stored under. */
export interface VerificationFieldNames {
  risk: string;
  score: string;
  reason: string;
  checkedAt: string;
  disposable: string;
  roleAccount: string;
  catchAll: string;
  freeProvider: string;
  spamTrapRisk: string;
}

/** verify-hub's default `ev_*` names: a CRM's properties and a cleaned file's columns agree on them. */
export const DEFAULT_VERIFICATION_FIELD_NAMES: VerificationFieldNames = {
  risk: 'ev_risk',
  score: 'ev_score',
  reason: 'ev_reason',
  checkedAt: 'ev_checked_at',
  disposable: 'ev_disposable',
  roleAccount: 'ev_role_account',
  catchAll: 'ev_catch_all',
  freeProvider: 'ev_free_provider',
  spamTrapRisk: 'ev_spam_trap_risk',
};

/** The score as stored: a whole number 0-100. */
export const storedScore = (v: Verification): number => Math.round(v.score);

/** The check's calendar date in UTC, `YYYY-MM-DD` (for stores that keep a date, not an instant). */
export const checkedOnDay = (v: Verification): string => new Date(v.checkedAt).toISOString().slice(0, 10);

/** A flag as text: '' (cleared) when undetermined, never written as false. */
const flagText = (b: boolean | null | undefined) => (b === null || b === undefined ? '' : b ? 'true' : 'false');

/**
 * Only verify-hub's own spam-trap levels: stores that hold them as an enumeration (a HubSpot select)
 * refuse others, so a level another engine invented (or none reported) clears the value instead.
 */
function spamTrapLevel(level: string | null): string {
  return level !== null && (SPAM_TRAP_LEVELS as readonly string[]).includes(level) ? level : '';
}

/** Every field as text under `names`: what a CRM's properties or a file's columns store. */
export function verificationFieldValues(v: Verification, names: VerificationFieldNames = DEFAULT_VERIFICATION_FIELD_NAMES): Record<string, string> {
  return {
    [names.risk]: v.risk,
    [names.score]: String(storedScore(v)),
    [names.reason]: v.reason,
    [names.checkedAt]: new Date(v.checkedAt).toISOString(),
    [names.disposable]: flagText(v.checks.disposable),
    [names.roleAccount]: flagText(v.checks.roleAccount),
    [names.catchAll]: flagText(v.checks.catchAll),
    [names.freeProvider]: flagText(v.checks.freeProvider),
    [names.spamTrapRisk]: spamTrapLevel(v.checks.spamTrapRisk),
  };
}

// ---------------------------------------------------------------- comparing

/**
 * Whether two stored values mean the same thing: numbers numerically, timestamps by instant,
 * everything else as trimmed strings; null, undefined and '' are all "not set".
 */
export function sameStoredValue(current: unknown, desired: unknown): boolean {
  const empty = (x: unknown) => x === null || x === undefined || x === '';
  if (empty(current) || empty(desired)) return empty(current) && empty(desired);
  const a = String(current).trim();
  const b = String(desired).trim();
  if (a === b) return true;
  const na = Number(a);
  const nb = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(na) && Number.isFinite(nb)) return na === nb;
  const isoLike = /^\d{4}-\d{2}-\d{2}T/;
  if (isoLike.test(a) && isoLike.test(b)) return Date.parse(a) === Date.parse(b);
  return false;
}

/** The subset of `desired` whose values differ from `current`: empty means the write can be skipped. */
export function changedValues<T>(current: Readonly<Record<string, unknown>> | undefined, desired: Readonly<Record<string, T>>): Record<string, T> {
  const changed: Record<string, T> = {};
  for (const [key, value] of Object.entries(desired)) {
    if (!sameStoredValue(current?.[key], value)) changed[key] = value;
  }
  return changed;
}
