import type { Risk } from '@verify-hub/core';

/**
 * The score table (engine/README.md "Score and risk"). The first matching rule gives risk and reason;
 * the reason's base score then loses the penalties below, and is kept inside the risk's band so a
 * score never contradicts its risk.
 */
export const BASE_SCORES: Record<string, { risk: Risk; score: number }> = {
  deliverable: { risk: 'safe', score: 95 },
  role_account: { risk: 'risky', score: 60 },
  catch_all: { risk: 'risky', score: 50 },
  provider_accepts_all: { risk: 'risky', score: 50 },
  ip_literal: { risk: 'risky', score: 40 },
  mailbox_full: { risk: 'risky', score: 30 },
  disposable: { risk: 'risky', score: 20 },
  spam_trap: { risk: 'risky', score: 15 },
  mailbox_disabled: { risk: 'invalid', score: 8 },
  mailbox_not_found: { risk: 'invalid', score: 5 },
  mx_private: { risk: 'invalid', score: 5 },
  no_mx: { risk: 'invalid', score: 3 },
  null_mx: { risk: 'invalid', score: 3 },
  domain_not_found: { risk: 'invalid', score: 2 },
  reserved_domain: { risk: 'invalid', score: 0 },
  syntax: { risk: 'invalid', score: 0 },
};

/** Unknown results: 40 when the domain is known to take mail (only the mailbox is in doubt), else 0. */
export const UNKNOWN_SCORE_WITH_MAIL_HOST = 40;

export const BANDS: Record<Risk, [number, number]> = { safe: [70, 100], risky: [10, 69], invalid: [0, 9], unknown: [0, 40] };

export interface ScoreEvidence {
  gibberish: boolean;
  spamTrapRisk: string | null;
  blacklisted: boolean;
  typoSuggestion: boolean;
  /** Neither SPF nor DMARC published. */
  noAuthentication: boolean;
}

export const PENALTIES = { gibberish: 10, spamTrapLow: 5, spamTrapMedium: 15, blacklisted: 10, typoSuggestion: 10, noAuthentication: 5 };

export function scoreFor(reason: string, evidence: ScoreEvidence, unknownWithMailHost = false, forceUnknown = false): { risk: Risk; score: number } {
  const base = forceUnknown ? undefined : BASE_SCORES[reason];
  if (!base) return { risk: 'unknown', score: unknownWithMailHost ? UNKNOWN_SCORE_WITH_MAIL_HOST : 0 };
  let score = base.score;
  if (base.risk === 'safe' || base.risk === 'risky') {
    if (evidence.gibberish) score -= PENALTIES.gibberish;
    if (evidence.spamTrapRisk === 'low') score -= PENALTIES.spamTrapLow;
    if (evidence.spamTrapRisk === 'medium') score -= PENALTIES.spamTrapMedium;
    if (evidence.blacklisted) score -= PENALTIES.blacklisted;
    if (evidence.typoSuggestion) score -= PENALTIES.typoSuggestion;
    if (evidence.noAuthentication) score -= PENALTIES.noAuthentication;
  }
  const [min, max] = BANDS[base.risk];
  return { risk: base.risk, score: Math.min(max, Math.max(min, score)) };
}

/** Deliverability of the domain (not the mailbox): authentication records and blocklist listings. */
export function deliverabilityGrade(auth: { spf: string | null; dkim: string | null; dmarc: string | null }, listedCount: number): { grade: string; score: number } {
  let score = 100;
  if (auth.spf === 'missing') score -= 20;
  if (auth.dmarc === 'missing') score -= 20;
  if (auth.dkim === 'missing') score -= 10;
  score -= Math.min(50, listedCount * 15);
  score = Math.max(0, score);
  const grade = score >= 90 ? 'A' : score >= 75 ? 'B' : score >= 60 ? 'C' : score >= 40 ? 'D' : 'F';
  return { grade, score };
}
