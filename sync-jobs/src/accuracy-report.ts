import { ACCURACY_REASONS, ACCURACY_VERDICTS, type AccuracyReason, type AccuracyReport, type AccuracyVerdict, type DeliveryCounts, type Risk, type Verification, type VerdictAccuracy } from '@verify-hub/core';

/** The verdict verify-hub held for an address when it was sent to, as the ledger keeps it. */
export interface HeldVerdict {
  risk: Risk;
  reason?: string;
  score?: number;
  checkedAt?: string;
  /** Why a safe, risky or unknown address was so judged, as the report splits it. */
  why: AccuracyReason;
  /** The hub's cache (under `cacheKey`, the normalised form it was found under), or the values the platform holds from the hub's last write. */
  from: 'cache' | 'platform';
  cacheKey?: string;
}

interface Evidence {
  at: string;
  platform: string;
  contactId?: string;
  code?: string;
  text?: string;
  sendId?: string;
  statusOnly?: boolean;
}

/** One address of a connection's ledger (bounce-ledger.ts). */
export interface LedgerAddress {
  address: string;
  verdict?: HeldVerdict;
  sent?: Evidence;
  hard?: Evidence;
  soft?: Evidence;
  policy?: Evidence;
  /** ISO time its cached verdict was corrected to invalid. */
  corrected?: string;
}

/** The reason code, then the checks: the report's split of safe, risky and unknown verdicts. */
export function accuracyReason(v: Pick<Verification, 'reason'> & { checks: Partial<Verification['checks']> }): AccuracyReason {
  switch (v.reason) {
    case 'catch_all':
      return 'catch_all';
    case 'provider_accepts_all':
      return 'accept_all';
    case 'role_account':
      return 'role';
    case 'disposable':
      return 'disposable';
  }
  if (v.checks.catchAll === true) return 'catch_all';
  if (v.checks.roleAccount === true) return 'role';
  if (v.checks.disposable === true) return 'disposable';
  return 'other';
}

const emptyCounts = (): DeliveryCounts => ({ sent: 0, hardBounced: 0, softBounced: 0, policy: 0 });

/** What an address counts as: a mailbox hard bounce outweighs a policy record, which outweighs a soft bounce (a bare "cleaned" status is outweighed by a policy record). */
function outcomeOf(entry: LedgerAddress): keyof DeliveryCounts {
  if (entry.hard && !(entry.hard.statusOnly && entry.policy)) return 'hardBounced';
  if (entry.policy) return 'policy';
  if (entry.soft) return 'softBounced';
  return 'sent';
}

function lastEvent(entry: LedgerAddress): number {
  return Math.max(...[entry.sent, entry.hard, entry.soft, entry.policy].map((e) => (e ? Date.parse(e.at) : 0)).filter(Number.isFinite));
}

/**
 * The report of one connection's ledger over the `days` before `now`: every address with a send or a
 * bounce in the window counts once under the verdict held for it, as sent and as what it came to.
 */
export function accuracyReport(entries: Iterable<LedgerAddress>, days: number, now = Date.now(), connectionId?: string): AccuracyReport {
  const since = now - days * 86_400_000;
  const rows = new Map<AccuracyVerdict, VerdictAccuracy>(ACCURACY_VERDICTS.map((verdict) => [verdict, { verdict, ...emptyCounts(), hardBounceRate: 0 }]));
  for (const verdict of ['safe', 'risky', 'unknown'] as const) rows.get(verdict)!.byReason = Object.fromEntries(ACCURACY_REASONS.map((r) => [r, emptyCounts()])) as Record<AccuracyReason, DeliveryCounts>;
  rows.get('invalid')!.notBounced = 0;
  let corrected = 0;
  for (const entry of entries) {
    if (entry.corrected && Date.parse(entry.corrected) >= since) corrected++;
    if (lastEvent(entry) < since) continue;
    const row = rows.get(entry.verdict?.risk ?? 'not_verified')!;
    const outcome = outcomeOf(entry);
    row.sent++;
    if (outcome !== 'sent') row[outcome]++;
    else if (row.notBounced !== undefined) row.notBounced++;
    const split = row.byReason?.[entry.verdict?.why ?? 'other'];
    if (split) {
      split.sent++;
      if (outcome !== 'sent') split[outcome]++;
    }
  }
  const verdicts = [...rows.values()].map((row) => ({ ...row, hardBounceRate: row.sent ? row.hardBounced / row.sent : 0 }));
  return { ...(connectionId ? { connectionId } : {}), days, since: new Date(since).toISOString(), generatedAt: new Date(now).toISOString(), verdicts, corrected };
}

/** Reports of several connections added up (an address on two connections counts on each). */
export function addReports(reports: AccuracyReport[], days: number, now = Date.now()): AccuracyReport {
  const total = accuracyReport([], days, now);
  for (const report of reports) {
    total.corrected += report.corrected;
    for (const row of report.verdicts) {
      const into = total.verdicts.find((v) => v.verdict === row.verdict)!;
      addCounts(into, row);
      if (row.notBounced !== undefined) into.notBounced = (into.notBounced ?? 0) + row.notBounced;
      for (const reason of ACCURACY_REASONS) if (row.byReason && into.byReason) addCounts(into.byReason[reason], row.byReason[reason]);
    }
  }
  for (const row of total.verdicts) row.hardBounceRate = row.sent ? row.hardBounced / row.sent : 0;
  return total;
}

function addCounts(into: DeliveryCounts, from: DeliveryCounts): void {
  into.sent += from.sent;
  into.hardBounced += from.hardBounced;
  into.softBounced += from.softBounced;
  into.policy += from.policy;
}
