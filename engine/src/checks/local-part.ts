import type { SpamTrapRisk } from '@verify-hub/core';

/**
 * Role accounts: mailboxes of a function, not a person. The names come from `role-based-email-addresses`
 * (over 1,000, maintained), plus RFC 2142's, matched on the local part without sub-address tag,
 * case-insensitively. Names that can be a person's are left out: two-letter names (initials as often as
 * departments: hr, pm, md; `it` stays) and given names (dev, sydney).
 */
const EXTRA_ROLE_NAMES = ['abuse', 'hostmaster', 'mailer-daemon', 'noc', 'postmaster', 'security', 'usenet', 'uucp', 'webmaster', 'www', 'no-reply', 'noreply', 'devnull', 'null'];
const PERSON_NAMES = new Set(['dev', 'sydney', 'ta']);
let roleNames: Set<string> | undefined;

function roles(): Set<string> {
  roleNames ??= new Set(
    [...(require('role-based-email-addresses') as string[]), ...EXTRA_ROLE_NAMES]
      .map((n) => n.toLowerCase())
      .filter((n) => !PERSON_NAMES.has(n) && (n.length !== 2 || n === 'it')),
  );
  return roleNames;
}

/** The role list's source, version and size (`verify-hub engine lists`). */
export function roleListInfo(): { list: string; source: string; version: string; size: number } {
  return { list: 'role account', source: 'role-based-email-addresses (+ RFC 2142, people\'s names left out)', version: (require('role-based-email-addresses/package.json') as { version: string }).version, size: roles().size };
}

/** Local parts that spam-trap operators and honeypots are known to use. */
const TRAP_WORDS = /(spam-?trap|honey-?pot|^trap[._-]?|^blackhole|^bounce-?test|^abuse$|^spam$)/i;

/**
 * The package's default threshold flags many real surnames (williams, garcia, nguyen); a threshold of
 * 5000 on its letter-pair score keeps keyboard noise out and names in (measured on a sample of both).
 */
const GIBBERISH_THRESHOLD = 5000;
const gibberishDetector = require('gibberish-detective')({ useCache: false, thresholdFn: () => GIBBERISH_THRESHOLD }) as { detect(text: string): boolean };

const KEYBOARD_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm', '1234567890'];

/** Five or more neighbouring keys of one keyboard row, either way (qwert, lkjhg). */
function isKeyboardRun(text: string): boolean {
  for (let i = 0; i + 5 <= text.length; i++) {
    const piece = text.slice(i, i + 5);
    const reversed = [...piece].reverse().join('');
    if (KEYBOARD_ROWS.some((row) => row.includes(piece) || row.includes(reversed))) return true;
  }
  return false;
}

/** Splits `user+tag` (and `user-tag` is left alone: too many real names contain a hyphen). */
export function subAddress(localPart: string): { base: string; tag: string | null } {
  const unquoted = localPart.replace(/^"(.*)"$/, '$1');
  const plus = unquoted.indexOf('+');
  if (plus <= 0) return { base: unquoted, tag: null };
  return { base: unquoted.slice(0, plus), tag: unquoted.slice(plus + 1) };
}

export function isRoleAccount(localPart: string): boolean {
  const base = subAddress(localPart).base.toLowerCase();
  return roles().has(base) || roles().has(base.replace(/[._-]/g, ''));
}

/**
 * A local part that reads like keyboard noise (xkqzvbwpt, asdfghjkl). The Markov-chain model of
 * `gibberish-detective` judges each letter run of 6 or more; shorter runs (initials, "jsmith") are not judged.
 */
export function isGibberish(localPart: string): boolean {
  const runs = subAddress(localPart).base.toLowerCase().split(/[^a-z]+/).filter((r) => r.length >= 6);
  return runs.some((run) => gibberishDetector.detect(run) || isKeyboardRun(run)) || /^[a-z]{0,2}\d{6,}$/i.test(subAddress(localPart).base);
}

export interface SpamTrapEvidence {
  localPart: string;
  typoDomain: boolean;
  roleAccount: boolean;
  gibberish: boolean;
  catchAll: boolean | null;
  blacklisted: boolean;
}

/**
 * Heuristic only (no one can see a pristine trap from outside):
 * - high: a trap-like local part (spamtrap, honeypot, trap.*), or a typo domain of a big provider
 *   that has no working mail host (a domain with one is judged by its SMTP answer, never by its spelling);
 * - medium: a role account or a gibberish local part on a catch-all domain, or any of them with the
 *   domain's mail servers on a DNS blocklist;
 * - low: a role account or a gibberish local part alone (a blocklisted mail server alone says something
 *   about the domain's reputation, not about the mailbox, and is scored as such);
 * - none otherwise.
 */
export function spamTrapLevel(e: SpamTrapEvidence): SpamTrapRisk {
  if (TRAP_WORDS.test(subAddress(e.localPart).base) || e.typoDomain) return 'high';
  const suspicious = e.roleAccount || e.gibberish;
  if (suspicious && (e.catchAll === true || e.blacklisted)) return 'medium';
  if (suspicious) return 'low';
  return 'none';
}
