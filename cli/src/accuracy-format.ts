import { ACCURACY_REASONS, type AccuracyAnswer, type AccuracyReason, type AccuracyReport, type AccuracyVerdict, type DeliveryCounts } from '@verify-hub/core';

const VERDICT_LABELS: Record<AccuracyVerdict, string> = { safe: 'Safe', risky: 'Risky', unknown: 'Unknown', invalid: 'Invalid', not_verified: 'Not verified by the hub' };
export const REASON_LABELS: Record<AccuracyReason, string> = { catch_all: 'catch-all domain', accept_all: 'accept-all provider', role: 'role address', disposable: 'disposable', other: 'other' };

const n = (value: number) => value.toLocaleString('en-US');
const rate = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(2)} %` : '-');

function row(label: string, c: DeliveryCounts): string {
  return `${label.padEnd(28)}${n(c.sent).padStart(9)}${`${n(c.hardBounced)} (${rate(c.hardBounced, c.sent)})`.padStart(20)}${n(c.softBounced).padStart(8)}${n(c.policy).padStart(9)}`;
}

/** One report as a table: per verdict sent, hard-bounced (rate), soft-bounced, policy (shown apart); safe, risky and unknown by reason. */
export function reportLines(report: AccuracyReport, title: string): string[] {
  const lines = [title, `${'Verdict held when sent'.padEnd(28)}${'Sent'.padStart(9)}${'Hard-bounced'.padStart(20)}${'Soft'.padStart(8)}${'Policy'.padStart(9)}`];
  for (const v of report.verdicts) {
    if (v.sent === 0 && v.verdict !== 'safe' && v.verdict !== 'risky') continue;
    lines.push(row(VERDICT_LABELS[v.verdict], v));
    for (const reason of ACCURACY_REASONS) {
      const split = v.byReason?.[reason];
      if (split && split.sent > 0 && reason !== 'other') lines.push(row(`  ${REASON_LABELS[reason]}`, split));
    }
  }
  const invalid = report.verdicts.find((v) => v.verdict === 'invalid');
  lines.push(`Called invalid but sent anyway: ${n(invalid?.sent ?? 0)}; of those, did not bounce: ${n(invalid?.notBounced ?? 0)}`);
  lines.push(`Verdicts corrected to invalid by a hard bounce (reason hard_bounce): ${n(report.corrected)}`);
  return lines;
}

/** The whole answer: all connections, then each one. Policy bounces (reputation, content, abuse) are counted apart and flip no verdict. */
export function accuracyText(answer: AccuracyAnswer): string {
  const since = answer.overall.since.slice(0, 10);
  const blocks = [reportLines(answer.overall, `Accuracy over the last ${answer.days} days (since ${since}), all connections with bounce data (${answer.connections.length})`)];
  for (const c of answer.connections) blocks.push(reportLines(c, `${c.label ?? c.connectionId} (${c.platform}, ${c.connectionId})`));
  if (answer.connections.length === 0) blocks.push(['No bounce data yet: the platforms are read every 15 minutes by the workers, or now with --read.']);
  return blocks.map((b) => b.join('\n')).join('\n\n');
}
