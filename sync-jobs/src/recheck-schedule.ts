import { InputError } from '@verify-hub/core';

/** When an unknown result is verified again: 30 min, 2 h, 8 h, 24 h, 5 days; then it stays unknown. */
export const DEFAULT_RECHECK_DELAYS_MS = [30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000, 5 * 24 * 3_600_000];

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `30m,2h,8h,24h,5d` (units s, m, h, d); the setting VERIFY_HUB_RECHECK_DELAYS. */
export function parseRecheckDelays(text: string, field = 'VERIFY_HUB_RECHECK_DELAYS'): number[] {
  const parts = text.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw new InputError(field, 'needs at least one delay, for example 30m,2h,8h,24h,5d');
  return parts.map((p) => {
    const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(p);
    if (!m) throw new InputError(field, `"${p}" is not a delay like 30m, 2h or 5d`);
    return Math.round(Number(m[1]) * UNIT_MS[m[2]!]!);
  });
}
