import { LEDGER_CATEGORIES, ROW_FLAGS, type CategoryInWords, type CheckInWords, type Ledger, type LedgerCategory, type RowFlag } from './result-wire';
import type { Checks, Verification } from './verification';

/**
 * Plain words for the reason codes people meet most: the engine's, the local engine's and the hub's own.
 * One list for every surface that explains a result to a person (the Zapier app, the n8n node, the MCP
 * server); a surface may add words of its own (Zapier's step time budget) or say more around them.
 */
export const REASON_WORDS: Readonly<Record<string, string>> = {
  deliverable: 'the mail server confirmed that the mailbox exists and accepts mail',
  syntax: 'the address is not well-formed (for example a missing @ or an invalid domain)',
  no_mx: 'its domain has no mail server (no MX record), so nothing can be delivered there',
  null_mx: 'its domain says it takes no mail (a null MX record)',
  domain_not_found: 'its domain does not exist',
  reserved_domain: 'its domain is reserved (example.com and the like) and can never receive mail',
  mailbox_not_found: 'the mail server says this mailbox does not exist',
  mailbox_disabled: 'the mailbox exists but is disabled',
  mailbox_full: 'the mailbox is full and currently refuses new mail',
  disposable: 'it is a disposable (throwaway) address',
  role_account: 'it is a role address (like info@ or sales@) read by a team, not one person',
  catch_all: "the domain accepts mail for any address (catch-all), so this mailbox's existence cannot be confirmed",
  spam_trap: 'it looks like a spam trap',
  smtp_timeout: 'the mail server did not answer in time',
  smtp_unreachable: 'the mail server could not be reached',
  smtp_blocked: 'the mail server refused to talk to the verifier (a policy block, not a verdict on the mailbox)',
  smtp_policy_block: "the mail server refused the verifier by policy (its IP, reputation or a blocklist): this says nothing about the mailbox; re-check later",
  smtp_rate_limited: 'the mail server asked the verifier to slow down (too many connections or messages); re-check later',
  provider_accepts_all: "the mail provider accepts every address at first and bounces later, so this mailbox's existence cannot be confirmed",
  greylisted: 'the mail server asked to try again later (greylisting)',
  smtp_temporary_failure: 'the mail server had a temporary failure',
  smtp_user_unknown_temporary: 'the mail server said, for now, that it does not know this mailbox; re-checked soon, and invalid only if it says so again hours later',
  engine_unreachable: 'the verification engine could not be reached',
  engine_error: 'the verification engine had an error',
  engine_bad_response: 'the verification engine gave an answer that could not be read',
  // The reasons core gives when an engine sends a risk and nothing to tell why (engine-wire.ts).
  undeliverable: 'the address cannot receive mail',
  risky: 'some signals make delivery or engagement uncertain',
  unknown: 'no verdict was reached',
  // The hub's own reasons: results it made without an engine answer, and rows it could not take.
  not_checked: 'not verified: the run stopped before this address (credit limit, quota or a stop); no credit spent',
  dns_unavailable: 'the mail server could not be reached from this server (its DNS lookups fail); no credit spent; re-check later',
  no_email: 'the row has no email address, so there was nothing to check',
  unreadable: 'the row could not be read (broken quoting or characters); it is in the rejected-rows file with its line',
  write_failed: 'the result could not be written back; the next run tries again',
  hard_bounce: "mail sent to it hard-bounced: the customer's own email platform reported the mailbox as undeliverable (this replaced the earlier verdict; it is not bought again)",
};

export function emptyLedger(): Ledger {
  return { safe: 0, risky: 0, invalid: 0, unknown: 0, not_checked: 0, unreadable: 0, write_failed: 0, total: 0 };
}

/** The ledger category of a result: an unknown the run never asked the engine about (`not_checked`) is "not checked". */
export function ledgerCategory(risk: 'safe' | 'risky' | 'invalid' | 'unknown', reason?: string): LedgerCategory {
  return risk === 'unknown' && reason === 'not_checked' ? 'not_checked' : risk;
}

/** A plain label and a one-line explanation per ledger category, for every surface that shows the counts. */
export const CATEGORY_WORDS: Readonly<Record<LedgerCategory, { label: string; explanation: string }>> = {
  safe: { label: 'Safe', explanation: 'the mailbox exists and accepts mail; send to it' },
  risky: { label: 'Risky', explanation: 'delivery is uncertain (catch-all domain, disposable or role address); send with care' },
  invalid: { label: 'Invalid', explanation: 'the address cannot receive mail; removed from the cleaned file' },
  unknown: { label: 'Unknown', explanation: 'no verdict could be reached (the mail server did not answer or could not be reached); no credit spent; re-check later' },
  not_checked: { label: 'Not checked', explanation: 'not verified: the credit limit or a stop came first, or the row has no address; no credit spent' },
  unreadable: { label: 'Could not be read', explanation: 'the row is broken in the file; listed in the rejected-rows file with its line and reason' },
  write_failed: { label: 'Failed to write', explanation: 'verified, but the result could not be written back' },
};

export const FLAG_WORDS: Readonly<Record<RowFlag, { label: string; explanation: string }>> = {
  role: { label: 'Role address', explanation: 'an address read by a team (info@, sales@, ...), not one person' },
  disposable: { label: 'Disposable', explanation: 'a throwaway address from a disposable-mail service' },
  catch_all: { label: 'Catch-all', explanation: 'its domain accepts mail for any address, so the mailbox cannot be confirmed' },
};

/** The flags a result carries (`checks.roleAccount`, `disposable`, `catchAll` true), in ROW_FLAGS order. */
export function rowFlags(v: Pick<Verification, 'checks'>): RowFlag[] {
  const set: Record<RowFlag, boolean> = { role: v.checks.roleAccount === true, disposable: v.checks.disposable === true, catch_all: v.checks.catchAll === true };
  return ROW_FLAGS.filter((flag) => set[flag]);
}

/**
 * The categories with rows, in order, each with its label and one-line explanation. `reasons` (counts
 * by reason code per category) makes the explanation say why, in REASON_WORDS, when one reason accounts
 * for every row of the category (`Unknown (1,764): the mail server could not be reached from this server ...`).
 */
export function ledgerInWords(ledger: Ledger, reasons: Partial<Record<LedgerCategory, Readonly<Record<string, number>>>> = {}): CategoryInWords[] {
  return LEDGER_CATEGORIES.filter((c) => ledger[c] > 0).map((c) => {
    const counts = Object.entries(reasons[c] ?? {}).filter(([, n]) => n > 0);
    const only = counts.length === 1 && counts[0]![1] === ledger[c] ? REASON_WORDS[counts[0]![0]] : undefined;
    let explanation = only ?? CATEGORY_WORDS[c].explanation;
    if (only && c === 'unknown' && !only.includes('re-check')) explanation += '; no credit spent; re-check later';
    return { category: c, label: CATEGORY_WORDS[c].label, count: ledger[c], explanation };
  });
}

/** One line per category with rows, e.g. `Unknown (1,764): the mail server could not be reached from this server ...` (see ledgerInWords). */
export function ledgerLines(ledger: Ledger, reasons: Partial<Record<LedgerCategory, Readonly<Record<string, number>>>> = {}): string[] {
  return ledgerInWords(ledger, reasons).map((c) => `${c.label} (${c.count.toLocaleString('en-US')}): ${c.explanation}`);
}

/** A reason code in plain words: the caller's own words first, then REASON_WORDS; undefined when neither knows it. */
export function reasonInWords(reason: string, own: Readonly<Record<string, string>> = {}): string | undefined {
  return own[reason] ?? REASON_WORDS[reason];
}

/**
 * The engine answered, but no SMTP conversation decided the mailbox: `smtpCheck` is `not_checked`, or an
 * MX verdict came with neither SMTP field (field set A's `smtp_valid` null). A result no engine gave
 * (rejected before, engine down) has no MX verdict either and is not "not checked".
 */
export function smtpNotChecked(c: Partial<Pick<Checks, 'smtp' | 'smtpCheck' | 'mx'>>): boolean {
  return c.smtpCheck === 'not_checked' || (c.smtp === null && (c.smtpCheck ?? null) === null && typeof c.mx === 'boolean');
}

/**
 * One sentence per result (two when the mailbox was not checked over SMTP), for an automation step's
 * output: an unknown says it was not billed and should be tried again later (`retryHint` names how, in
 * the tool's own words).
 */
export function explainInWords(v: Verification, options: { own?: Readonly<Record<string, string>>; retryHint?: string } = {}): string {
  const notChecked = smtpNotChecked(v.checks);
  const smtpNote = notChecked ? ' Mailbox not checked: no SMTP conversation with the mail server took place.' : '';
  const reason = notChecked && v.reason === 'deliverable' ? 'the domain accepts mail' : (reasonInWords(v.reason, options.own) ?? v.reason.replace(/_/g, ' '));
  const score = `score ${Math.round(v.score)}/100`;
  switch (v.risk) {
    case 'safe':
      return `Safe to send: ${reason} (${score}).${smtpNote}`;
    case 'risky':
      return `Risky: ${reason} (${score}). Mail may bounce or harm your sender reputation.${smtpNote}`;
    case 'invalid':
      return `Invalid: ${reason}. Do not send to this address.${smtpNote}`;
    case 'unknown':
      return `Unknown: ${reason}. This result was not billed; try again later${options.retryHint ? ` (${options.retryHint})` : ''}.${smtpNote}`;
  }
}

/**
 * The address the engine suggests for a likely typo (`checks.typoSuggestion`, `did_you_mean` on the wire),
 * or null when it has none. Engines send either a whole address or only the domain (the local engine
 * sends `gmail.com` for `someone@gmial.com`): a domain is put after the address's own local part.
 */
export function suggestedAddress(v: Pick<Verification, 'email' | 'checks'>): string | null {
  const suggestion = v.checks.typoSuggestion;
  if (typeof suggestion !== 'string' || !suggestion.trim()) return null;
  const s = suggestion.trim();
  if (s.includes('@')) return s;
  const at = v.email.lastIndexOf('@');
  return at > 0 ? `${v.email.slice(0, at).trim()}@${s}` : s;
}

const NOT_CHECKED = 'not checked';

const SMTP_WORDS: Readonly<Record<string, string>> = {
  deliverable: 'the mail server accepts this mailbox',
  undeliverable: 'the mail server refuses this mailbox',
  catch_all: 'the mail server accepts any address (catch-all)',
  mailbox_full: 'the mailbox is full',
  greylisted: 'the mail server asked to try again later',
  temporary_failure: 'the mail server had a temporary failure',
  blocked: 'the mail server refused to talk to the verifier',
  timeout: 'the mail server did not answer in time',
  unreachable: 'the mail server could not be reached',
  ambiguous: 'the mail server gave an unclear answer',
};

/**
 * Each check behind a result in plain words, in a fixed order, for a person reading one result (the
 * CLI's `verify`, the dashboard's single-address check). A check that was not made says "not checked",
 * never "no". The typo check is listed only when the engine reports one (`typoSuggestion` present).
 */
export function checksInWords(v: Pick<Verification, 'email' | 'checks'>): CheckInWords[] {
  const c = v.checks;
  const yesNo = (value: boolean | null | undefined, yes = 'yes', no = 'no') => (value === true ? yes : value === false ? no : NOT_CHECKED);
  const row = (check: string, label: string, value: string): CheckInWords => ({ check, label, value, checked: value !== NOT_CHECKED });
  const smtp = (): string => {
    if (smtpNotChecked(c) || (c.smtp === null && (c.smtpCheck ?? null) === null)) return NOT_CHECKED;
    if (typeof c.smtpCheck === 'string') return SMTP_WORDS[c.smtpCheck] ?? c.smtpCheck.replace(/_/g, ' ');
    return yesNo(c.smtp, SMTP_WORDS.deliverable, SMTP_WORDS.undeliverable);
  };
  const catchAll = yesNo(c.catchAll, typeof c.catchAllConfidence === 'number' ? `yes (confidence ${Math.round(c.catchAllConfidence * 100)} %)` : 'yes');
  const rows = [
    row('syntax', 'Address format', yesNo(c.syntax, 'well-formed', 'not well-formed')),
    row('mx', 'Mail server (MX record)', yesNo(c.mx, 'found', 'none found')),
    row('smtp', 'Mailbox (SMTP conversation)', smtp()),
    row('disposable', 'Disposable (throwaway) address', yesNo(c.disposable)),
    row('roleAccount', 'Role address (info@, sales@, ...)', yesNo(c.roleAccount)),
    row('catchAll', 'Domain accepts any address (catch-all)', catchAll),
    row('freeProvider', 'Free mailbox provider', yesNo(c.freeProvider)),
    row('spamTrapRisk', 'Spam-trap risk', typeof c.spamTrapRisk === 'string' ? c.spamTrapRisk.replace(/_/g, ' ') : NOT_CHECKED),
  ];
  if ('typoSuggestion' in c) {
    const suggestion = suggestedAddress(v);
    rows.push(row('typoSuggestion', 'Typo in the domain', suggestion ? `likely: did you mean ${suggestion}?` : 'none found'));
  }
  return rows;
}
