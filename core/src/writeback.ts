import type { Risk, Verification } from './verification';
import { RISKS, SPAM_TRAP_LEVELS } from './verification';

/**
 * Pure mapping from a `Verification` to what each platform stores (DESIGN.md §6). Names are defaults
 * that a connection may override; values are formatted the way each platform stores them, so that a
 * value read back compares equal to a value written and unchanged writes can be skipped.
 */

// ---------------------------------------------------------------- HubSpot

export interface HubSpotPropertyNames {
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

export const DEFAULT_HUBSPOT_GROUP = { name: 'email_verification', label: 'Email verification' };

export const DEFAULT_HUBSPOT_PROPERTY_NAMES: HubSpotPropertyNames = {
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

const boolValue = (b: boolean | null | undefined) => (b === null || b === undefined ? '' : b ? 'true' : 'false');

/**
 * The spam-trap property is an enumeration of verify-hub's levels, and HubSpot refuses a value outside its
 * options: a level another engine invented (or none reported) clears the property instead of failing the write.
 */
function spamTrapOption(level: string | null): string {
  return level !== null && (SPAM_TRAP_LEVELS as readonly string[]).includes(level) ? level : '';
}

/** HubSpot property values (all strings, as the API takes them); an undetermined flag is '' (cleared). */
export function toHubSpotProperties(v: Verification, names: HubSpotPropertyNames = DEFAULT_HUBSPOT_PROPERTY_NAMES): Record<string, string> {
  return {
    [names.risk]: v.risk,
    [names.score]: String(Math.round(v.score)),
    [names.reason]: v.reason,
    [names.checkedAt]: new Date(v.checkedAt).toISOString(),
    [names.disposable]: boolValue(v.checks.disposable),
    [names.roleAccount]: boolValue(v.checks.roleAccount),
    [names.catchAll]: boolValue(v.checks.catchAll),
    [names.freeProvider]: boolValue(v.checks.freeProvider),
    [names.spamTrapRisk]: spamTrapOption(v.checks.spamTrapRisk),
  };
}

// ---------------------------------------------------------------- Mailchimp

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
    [names.scoreMergeField]: Math.round(v.score),
    [names.dateMergeField]: new Date(v.checkedAt).toISOString().slice(0, 10),
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
