import { toWireResponse, type Verification, type WireResult } from '@verify-hub/core';

/**
 * The engine's further checks, served flat in snake_case beside the published fields (engine/README.md
 * and openapi.yaml document each). Every answer carries all of them: `null` when the check was not made
 * (a reserved domain has no SMTP conversation, a syntax failure has no DNS look-up).
 */
export const ENGINE_CHECK_FIELDS = [
  'domain_exists', 'implicit_mx', 'null_mx', 'mx_private', 'smtp_connect', 'smtp_greeting', 'starttls', 'greylisted', 'mailbox_full',
  'mailbox_disabled', 'smtp_reply', 'provider', 'sub_addressing', 'gibberish', 'reserved_domain', 'retry_after_seconds', 'syntax_problem',
] as const;

/** Field set B, then field set A's non-colliding fields, then verify-hub's extension fields: the order they are served in. */
const PUBLISHED_ORDER = [
  'email', 'score', 'risk', 'syntax_valid', 'mx_found', 'smtp_check', 'is_disposable', 'is_role_account', 'is_catch_all', 'is_free_provider', 'spam_trap_risk', 'deliverability',
  'valid', 'deliverable', 'smtp_valid', 'disposable', 'role_based', 'free_email',
  'reason', 'normalized', 'catch_all_confidence', 'checked_at', 'billable', 'did_you_mean',
] as const;

/**
 * The 200 answer of `GET /api/v1/verify`: core's `toWireResponse` (the one writing of the wire), with
 * every documented field present, in a stable order. A check another verifier reports beyond these is
 * kept at the end, as it came.
 */
export function engineAnswer(v: Verification): WireResult {
  const wire = toWireResponse(v) as Record<string, unknown>;
  const answer: Record<string, unknown> = {};
  for (const field of PUBLISHED_ORDER) answer[field] = wire[field] ?? null;
  for (const field of ENGINE_CHECK_FIELDS) answer[field] = wire[field] ?? null;
  for (const [field, value] of Object.entries(wire)) if (!(field in answer)) answer[field] = value;
  return answer as WireResult;
}
