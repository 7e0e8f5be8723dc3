import type { Risk } from './api-types';
import { formatNumber } from './format';

/** Fixed colours, each at least 4.5:1 against the white background (WCAG 1.4.11 asks 3:1 of graphics). */
export const RISK_COLOURS: Record<Risk, string> = {
  safe: '#1a7f37',
  risky: '#9a6700',
  invalid: '#cf222e',
  unknown: '#57606a',
};

const RISKS: Risk[] = ['safe', 'risky', 'invalid', 'unknown'];
const LABELS: Record<Risk, string> = { safe: 'Safe', risky: 'Risky', invalid: 'Invalid', unknown: 'Unknown' };

const WIDTH = 480;
const LABEL_WIDTH = 76;
const VALUE_ROOM = 72;
const ROW = 30;
const BAR = 18;

export function riskSummary(risk: Record<Risk, number>): string {
  return `Risk distribution: ${RISKS.map((r) => `${risk[r] ?? 0} ${r}`).join(', ')}`;
}

/**
 * A hand-written horizontal bar chart of a run's results by risk: four bars, a value on each, and the
 * same numbers in text beside it. No chart library: four rectangles do not need one.
 */
export function RiskChart({ risk }: { risk: Record<Risk, number> }) {
  const values = RISKS.map((r) => risk[r] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  const max = Math.max(1, ...values);
  const barSpace = WIDTH - LABEL_WIDTH - VALUE_ROOM;
  const height = RISKS.length * ROW + 4;
  const share = (n: number) => (total ? Math.round((n / total) * 100) : 0);

  return (
    <figure class="risk-chart" data-testid="risk-chart">
      <figcaption>Risk distribution</figcaption>
      <svg role="img" aria-label={riskSummary(risk)} viewBox={`0 0 ${WIDTH} ${height}`} width={WIDTH} height={height} class="risk-svg">
        {RISKS.map((r, i) => {
          const value = values[i]!;
          const y = 2 + i * ROW;
          const width = value === 0 ? 0 : Math.max(2, (value / max) * barSpace);
          return (
            <g key={r}>
              <text x={0} y={y + BAR / 2} dominant-baseline="central" class="risk-label">
                {LABELS[r]}
              </text>
              <rect x={LABEL_WIDTH} y={y} width={barSpace} height={BAR} class="risk-track" />
              <rect x={LABEL_WIDTH} y={y} width={width} height={BAR} fill={RISK_COLOURS[r]} />
              <text x={LABEL_WIDTH + width + 6} y={y + BAR / 2} dominant-baseline="central" class="risk-value">
                {formatNumber(value)}
              </text>
            </g>
          );
        })}
      </svg>
      <ul class="risk-numbers">
        {RISKS.map((r, i) => (
          <li key={r}>
            <span class="swatch" aria-hidden="true" data-risk={r} />
            {LABELS[r]}: {formatNumber(values[i]!)}
            {total > 0 && ` (${share(values[i]!)} %)`}
          </li>
        ))}
      </ul>
    </figure>
  );
}
