import type { Verification } from '@verify-hub/core';

/**
 * The sentence each output item carries as `explanation`, so a workflow (or an AI agent using the node
 * as a tool) can read the verdict without knowing the reason codes.
 */

const REASON_TEXT: Record<string, string> = {
  deliverable: 'the mail server accepted the mailbox',
  mailbox_not_found: 'the mail server says the mailbox does not exist',
  no_mx: 'the domain has no mail server (MX)',
  syntax: 'the address is not well-formed',
  disposable: 'it is a disposable (throwaway) address',
  role_account: 'it is a role address (info@, sales@...)',
  catch_all: 'the domain accepts mail for any address (catch-all)',
  spam_trap: 'it looks like a spam trap',
  smtp_timeout: 'the mail server did not answer in time',
  greylisted: 'the mail server asked to try again later (greylisting)',
  engine_unreachable: 'the verification engine could not be reached',
  engine_error: 'the verification engine had an error',
  engine_bad_response: 'the verification engine gave an answer that could not be read',
  // The reasons core gives when an engine sends a risk and no reason code (field set B has none).
  risky: 'some signals make delivery or engagement uncertain',
  undeliverable: 'the address cannot receive mail',
  unknown: 'no verdict was reached',
};

/**
 * The engine answered, but no SMTP conversation decided the mailbox: `smtpCheck` "not_checked", or an
 * MX verdict with neither SMTP field (field set A's `smtp_valid` null). A result no engine gave
 * (rejected before, engine down) has no MX verdict either and is not "not checked".
 */
export function smtpNotChecked(v: Verification): boolean {
  const c = v.checks;
  return c.smtpCheck === 'not_checked' || (c.smtp === null && c.smtpCheck === null && c.mx !== null);
}

export function explain(v: Verification): string {
  const notChecked = smtpNotChecked(v);
  const reason = notChecked && v.reason === 'deliverable' ? 'the domain accepts mail' : REASON_TEXT[v.reason] ?? v.reason.replace(/_/g, ' ');
  const note = notChecked ? ' Mailbox not checked: no SMTP conversation with the mail server took place.' : '';
  const score = `score ${Math.round(v.score)}/100`;
  switch (v.risk) {
    case 'safe':
      return `Safe to send: ${reason} (${score}).${note}`;
    case 'risky':
      return `Risky: ${reason} (${score}). Mail may bounce or go unread.${note}`;
    case 'invalid':
      return `Invalid: ${reason}. Do not send.${note}`;
    case 'unknown':
      return `Unknown: ${reason}. Not billed; verify again later.${note}`;
  }
}
