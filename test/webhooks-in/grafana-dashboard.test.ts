import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metric } from 'prom-client';
import { metricsRegistry } from '@verify-hub/sync-jobs';
import { HubMetrics } from '../../webhooks-in/src/http-metrics';

interface Panel {
  id: number;
  title: string;
  datasource: { uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets: Array<{ refId: string; expr: string }>;
}

/** deploy/grafana/verify-hub.json read against the metrics the pipeline and the hub really register. */
const dashboard = JSON.parse(readFileSync(join(__dirname, '../../deploy/grafana/verify-hub.json'), 'utf8')) as { panels: Panel[]; templating: { list: Array<{ name: string; type: string }> } };
const metrics = new Map<string, Metric & { labelNames?: string[] }>();
for (const m of [...metricsRegistry.getMetricsAsArray(), ...new HubMetrics({ processMetrics: false }).registry.getMetricsAsArray()]) {
  metrics.set((m as unknown as { name: string }).name, m as unknown as Metric & { labelNames?: string[] });
}
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

/** The metric family an expression's series name belongs to (a histogram's `_bucket` series to its histogram). */
function familyOf(series: string): string {
  return metrics.has(series) ? series : series.replace(HISTOGRAM_SERIES, '');
}

const panelExprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ panel: p.title, expr: t.expr })));

describe('the Grafana dashboard (deploy/grafana/verify-hub.json)', () => {
  it('queries only metrics the hub and the pipeline register, histograms through their buckets', () => {
    for (const { panel, expr } of panelExprs) {
      const series = expr.match(/verify_hub_[a-z_]+/g) ?? [];
      expect({ panel, series: series.length > 0 }).toEqual({ panel, series: true });
      for (const name of series) {
        const family = familyOf(name);
        expect({ panel, name, registered: metrics.has(family) }).toEqual({ panel, name, registered: true });
        if (name.endsWith('_bucket')) expect({ panel, name, type: (metrics.get(family) as unknown as { type?: string }).type ?? histogramType(family) }).toEqual({ panel, name, type: 'histogram' });
      }
    }
  });

  it('groups and filters only by labels those metrics carry', () => {
    for (const { panel, expr } of panelExprs) {
      const labels = new Set(['le']);
      for (const name of expr.match(/verify_hub_[a-z_]+/g) ?? []) for (const l of metrics.get(familyOf(name))?.labelNames ?? []) labels.add(l);
      const used = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim()));
      used.push(...[...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => m[1]!.split(',').map((s) => s.split(/[=!~]/)[0]!.trim())));
      for (const label of used.filter(Boolean)) expect({ panel, label, known: labels.has(label) }).toEqual({ panel, label, known: true });
    }
  });

  it('charts every metric of the pipeline and the hub at least once', () => {
    const charted = new Set(panelExprs.flatMap(({ expr }) => (expr.match(/verify_hub_[a-z_]+/g) ?? []).map(familyOf)));
    const uncharted = [...metrics.keys()].filter((name) => name.startsWith('verify_hub_') && !charted.has(name));
    expect(uncharted).toEqual([]);
  });

  it('has unique panel ids, panels that do not overlap on the 24-column grid, and the datasource as a variable', () => {
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    const cells = new Set<string>();
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w).toBeLessThanOrEqual(24);
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++) {
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
      expect(p.datasource.uid).toBe('${datasource}');
    }
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource' }));
  });
});

/** prom-client keeps a histogram's kind on its `get()` result; read it when the object has no `type`. */
function histogramType(family: string): string | undefined {
  const metric = metrics.get(family) as unknown as { constructor: { name: string } };
  return metric.constructor.name === 'Histogram' ? 'histogram' : metric.constructor.name;
}
