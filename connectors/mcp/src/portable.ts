import { DKIM_VALUES, DMARC_VALUES, RiskSchema, SMTP_CHECK_OUTCOMES, SPAM_TRAP_LEVELS, SPF_VALUES, type Verification } from '@verify-hub/core';
import { z } from 'zod';

/**
 * The result as the MCP tools publish it: every field has one JSON type and a description, so the
 * schemas pass single-type dialects (some assistants' function calling refuses `"type": [..., "null"]`).
 * Core's model says "not checked" with `null`; here the field is left out instead, and every such
 * field says so. `toPortableResult` is the one conversion.
 */
const NOT_CHECKED = 'Absent when the check was not made or not reported (never false for "not checked").';

const check = (what: string) => z.boolean().optional().describe(`${what} ${NOT_CHECKED}`);
const openText = (what: string) => z.string().optional().describe(`${what} An open list: other values an engine sends are kept as they came. Absent when not reported.`);

export const PortableChecksSchema = z.object({
  syntax: check('true: the address is well formed; false: it is not.'),
  mx: check('true: the domain has a mail server (MX record); false: it has none.'),
  smtp: check('true: the mail server accepted the mailbox; false: it refused it. Absent also when no SMTP conversation decided it.'),
  smtpCheck: openText(`The SMTP outcome: ${SMTP_CHECK_OUTCOMES.join(', ')} (not_checked: no SMTP conversation took place).`),
  disposable: check('true: a disposable (throwaway) address.'),
  roleAccount: check('true: a role address read by a team (info@, sales@).'),
  catchAll: check('true: the domain accepts mail for any address, so the mailbox itself cannot be confirmed.'),
  catchAllConfidence: z.number().min(0).max(1).optional().describe('How sure the engine is that the domain is catch-all, 0 to 1. Absent when not estimated.'),
  freeProvider: check('true: an address at a free mail provider (a personal address).'),
  spamTrapRisk: openText(`The spam-trap risk: ${SPAM_TRAP_LEVELS.join(', ')}.`),
});

export const PortableDeliverabilitySchema = z.object({
  grade: openText('The domain\'s deliverability grade, for example "A".'),
  score: z.number().min(0).max(100).optional().describe('The domain\'s deliverability score, 0 to 100. Absent when not reported.'),
  authentication: z
    .object({
      spf: openText(`SPF of the domain: ${SPF_VALUES.join(', ')} (missing: no SPF record).`),
      dkim: openText(`DKIM of the domain: ${DKIM_VALUES.join(', ')}.`),
      dmarc: openText(`DMARC policy of the domain: ${DMARC_VALUES.join(', ')} (missing: no DMARC record).`),
    })
    .optional()
    .describe('The mail authentication the domain publishes. Absent when not checked.'),
  blacklist: z
    .object({
      listed: z.boolean().optional().describe(`true: the domain is on at least one blocklist. ${NOT_CHECKED}`),
      listedCount: z.number().int().min(0).optional().describe('On how many blocklists the domain is. Absent when not reported.'),
      totalChecks: z.number().int().min(0).optional().describe('How many blocklists were checked. Absent when not reported.'),
    })
    .optional()
    .describe('Blocklist checks of the domain. Absent when not checked.'),
});

const RISK_TEXT = 'safe (send), risky (may bounce or go unread), invalid (do not send) or unknown (no verdict: try later, not charged).';

export const PortableResultSchema = z.object({
  email: z.string().describe('The address as given.'),
  normalized: z.string().describe('The address trimmed, its domain lower-cased and in ASCII (IDN).'),
  score: z.number().min(0).max(100).describe('0 (certainly bad) to 100 (certainly good).'),
  risk: RiskSchema.describe(`The verdict: ${RISK_TEXT}`),
  reason: z.string().describe('A stable snake_case code for the main reason, for example deliverable, mailbox_not_found, no_mx, disposable, syntax.'),
  checks: PortableChecksSchema.describe('The individual checks behind the verdict; a check that was not made is left out.'),
  deliverability: PortableDeliverabilitySchema.optional().describe('How well the domain is set up to deliver mail. Absent when the engine did not report it.'),
  checkedAt: z.string().describe('When the address was checked (ISO 8601 date and time).'),
  billable: z.boolean().describe('true: this result used one credit; false: it was free (unknown results, and addresses rejected locally).'),
});
export type PortableResult = z.infer<typeof PortableResultSchema>;

/** Drops `null` and `undefined` values, nested objects included: "not checked" becomes "absent". */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/**
 * Core's `Verification` as the tools return it: nulls left out and only the published fields kept
 * (extra fields an engine adds are not in the schema, so they are not passed on).
 */
export function toPortableResult(v: Verification): PortableResult {
  return PortableResultSchema.parse(withoutNulls(v));
}

/**
 * What `explain_result` accepts: a result as `verify_email` returns it. Only `risk` is required, so an
 * assistant can also pass a result it summarised or got elsewhere; other fields are ignored.
 */
export const ExplainInputSchema = z.object({
  email: z.string().optional().describe('The address, if known; it is named in the headline.'),
  risk: RiskSchema.describe(`The verdict of the result: ${RISK_TEXT}`),
  score: z.number().min(0).max(100).optional().describe('The score of the result, 0 to 100, if known.'),
  reason: z.string().optional().describe('The reason code of the result, for example mailbox_not_found, if known.'),
  checks: PortableChecksSchema.partial().optional().describe('The checks of the result, as verify_email returns them; leave out a check that was not made.'),
  deliverability: PortableDeliverabilitySchema.partial().optional().describe('The deliverability part of the result, if any.'),
});
export type ExplainInput = z.infer<typeof ExplainInputSchema>;
