import { basename, dirname } from 'node:path';
import { RateTracker, averageEtaMs, parseScope, progressFigure, runName, spentView, type Pricing } from '@verify-hub/core';
import type { RunRecord } from '@verify-hub/sync-jobs';
import type { RunProgress, RunView } from './run-api-types';

/** The recent rate of each live run, fed by every view of it (the dashboard's polls and events): for the ETA. */
const rates = new Map<string, RateTracker>();
const MAX_TRACKED = 1000;

function rateOf(id: string): RateTracker {
  let tracker = rates.get(id);
  if (!tracker) {
    if (rates.size >= MAX_TRACKED) rates.delete(rates.keys().next().value!);
    tracker = new RateTracker();
    rates.set(id, tracker);
  }
  return tracker;
}

/**
 * A file run's scope holds the server's path of the upload: answers show the file's name only, and
 * a reason that quotes the path (a read error) loses the folder. The server's layout is nobody's business.
 */
function withoutServerPaths(run: RunRecord): RunRecord {
  const scope = parseScope(run.scope);
  if (scope.kind !== 'file' || !scope.value) return run;
  const folder = dirname(scope.value);
  const view: RunRecord = { ...run, scope: `file:${basename(scope.value)}` };
  if (run.statusReason && folder !== '.') view.statusReason = run.statusReason.split(`${folder}/`).join('').split(folder).join('');
  return view;
}

/**
 * A run as the admin API shows it: the record (no server path), its name for people (given at start,
 * else its scope in words), a progress figure computed from its counters, and the credits it spent
 * (in money too when a price is configured).
 */
export function runView(record: RunRecord, options: { now?: number; pricing?: Pricing } = {}): RunView {
  const now = options.now ?? Date.now();
  const run = withoutServerPaths(record);
  const c = run.counters;
  // written + unchanged + failed = pulled once every contact is through (sync-jobs README); skipped is outside pulled.
  // While running, the addresses already answered in pages not yet written count too: the figure follows the
  // verifications, not each page's write (a page holds at most as many addresses as contacts: never going back).
  const done = c.written + c.unchanged + c.failed + (run.status === 'running' ? (run.checking ?? 0) : 0);
  const finished = run.status === 'completed';
  // The total counts contacts: the rows known up front less those the source skipped so far (a file's blank rows), so it
  // can only shrink while done only grows (the percentage never goes back), and a finished run reads "N of N".
  const expected = run.expectedTotal === undefined ? undefined : Math.max(0, run.expectedTotal - c.skipped);
  const figure = progressFigure({ done, seen: c.pulled, expectedTotal: expected, finished });
  const progress: RunProgress = { done, pulled: c.pulled };
  if (figure.total !== undefined) progress.total = figure.total;
  if (figure.percent !== undefined) progress.percent = figure.percent;
  if (run.status === 'running' && figure.total !== undefined && figure.percent !== undefined) {
    const tracker = rateOf(run.id);
    const settled = tracker.observe(figure.done, now);
    const eta = tracker.etaMs(figure.total - settled) ?? averageEtaMs(settled, figure.total, run.startedAt, now);
    if (eta !== undefined) progress.etaSeconds = Math.round(eta / 1000);
  } else if (run.status !== 'running') rates.delete(run.id);
  return { ...run, name: runName(run), progress, spent: spentView(c.credits, options.pricing) };
}
