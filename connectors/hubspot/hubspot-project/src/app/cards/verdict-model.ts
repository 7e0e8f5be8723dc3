/**
 * What the card shows, as plain data: the hub's answer (`CardView` of the HubSpot connector's card.ts)
 * turned into a headline, a tag, the checks and the time of the check. No React here, so the hub's
 * tests check it as they check the endpoint; VerdictCard.tsx only lays it out.
 */
export type Risk = 'safe' | 'risky' | 'invalid' | 'unknown';

/** The hub's answer to POST /platforms/hubspot/cards/verdict and /verify. */
export type HubCardView =
  | { checked: false; email: string }
  | { checked: true; email: string; risk: Risk; score: number; reason: string; didYouMean: string | null; checkedAt: string; checks: { check: string; label: string; value: string; checked: boolean }[] };

export type TagVariant = 'default' | 'warning' | 'success' | 'error' | 'info';

export interface VerdictDisplay {
  headline: string;
  tag: { text: string; variant: TagVariant } | null;
  score: string | null;
  reason: string | null;
  didYouMean: string | null;
  /** "Checked 23 Nov 2026, 22:40 UTC", or "Never checked". */
  checkedAt: string;
  /** Each check with its value: "yes", "no", or "not checked" where the check was not made (never "no"). */
  checks: { label: string; value: string }[];
}

const RISK_TAGS: Record<Risk, { text: string; variant: TagVariant }> = {
  safe: { text: 'Safe', variant: 'success' },
  risky: { text: 'Risky', variant: 'warning' },
  invalid: { text: 'Invalid', variant: 'error' },
  unknown: { text: 'Unknown', variant: 'default' },
};

function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return 'Checked (time not known)';
  return `Checked ${date.toLocaleString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' })} UTC`;
}

export function verdictDisplay(view: HubCardView | undefined, contactEmail: string | null): VerdictDisplay {
  if (!contactEmail) return { headline: 'This contact has no email address.', tag: null, score: null, reason: null, didYouMean: null, checkedAt: 'Never checked', checks: [] };
  if (!view || !view.checked) return { headline: `${contactEmail} has not been checked yet.`, tag: null, score: null, reason: null, didYouMean: null, checkedAt: 'Never checked', checks: [] };
  return {
    headline: view.email,
    tag: RISK_TAGS[view.risk],
    score: `${view.score} / 100`,
    reason: view.reason,
    didYouMean: view.didYouMean,
    checkedAt: when(view.checkedAt),
    checks: view.checks.map((c) => ({ label: c.label, value: c.checked ? c.value : 'not checked' })),
  };
}
