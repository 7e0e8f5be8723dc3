import type { VerdictAccuracy } from './api-types';
import { formatNumber } from './format';
import { RISK_COLOURS } from './risk-chart';

const WIDTH = 520;
const LABEL_WIDTH = 90;
const VALUE_ROOM = 180;
const ROW = 30;
const BAR = 18;
const LABELS: Record<string, string> = { safe: 'Safe', risky: 'Risky', unknown: 'Unknown' };

export const percent = (part: number, whole: number) => (whole ? `${((part / whole) * 100).toFixed(2)} %` : '–');

/** The chart's numbers in one sentence: what a screen reader reads for the image. */
export function accuracySummary(rows: VerdictAccuracy[]): string {
  return `Hard-bounce rate by verdict: ${rows.map((r) => `${r.verdict} ${percent(r.hardBounced, r.sent)} (${r.hardBounced} of ${r.sent} sent)`).join(', ')}`;
}

/**
 * The hard-bounce rate of the addresses called safe, risky and unknown, as bars on one scale (the
 * highest rate fills the track), each with its rate and counts written after the track. Hand-written SVG, as
 * the risk chart: three rectangles need no library.
 */
export function AccuracyChart({ verdicts }: { verdicts: VerdictAccuracy[] }) {
  const rows = verdicts.filter((v) => v.verdict === 'safe' || v.verdict === 'risky' || v.verdict === 'unknown');
  const rates = rows.map((r) => (r.sent ? r.hardBounced / r.sent : 0));
  const max = Math.max(0.0001, ...rates);
  const barSpace = WIDTH - LABEL_WIDTH - VALUE_ROOM;
  const height = rows.length * ROW + 4;
  return (
    <figure class="risk-chart" data-testid="accuracy-chart">
      <figcaption>Hard-bounce rate of what was sent, by the verdict held</figcaption>
      <svg role="img" aria-label={accuracySummary(rows)} viewBox={`0 0 ${WIDTH} ${height}`} width={WIDTH} height={height} class="risk-svg">
        {rows.map((r, i) => {
          const y = 2 + i * ROW;
          const width = rates[i] === 0 ? 0 : Math.max(2, (rates[i]! / max) * barSpace);
          return (
            <g key={r.verdict}>
              <text x={0} y={y + BAR / 2} dominant-baseline="central" class="risk-label">
                {LABELS[r.verdict]}
              </text>
              <rect x={LABEL_WIDTH} y={y} width={barSpace} height={BAR} class="risk-track" />
              <rect x={LABEL_WIDTH} y={y} width={width} height={BAR} fill={RISK_COLOURS[r.verdict as 'safe' | 'risky' | 'unknown']} />
              <text x={LABEL_WIDTH + barSpace + 8} y={y + BAR / 2} dominant-baseline="central" class="risk-value">
                {`${percent(r.hardBounced, r.sent)} (${formatNumber(r.hardBounced)} of ${formatNumber(r.sent)})`}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}
