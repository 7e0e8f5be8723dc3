import { averageEtaMs, costText, durationWords, ledgerLines, progressFigure, progressWords, runName, type Ledger, type Pricing } from '@verify-hub/core';
import type { RunRecord } from '@verify-hub/sync-jobs';

/** "2,100 of 5,000 (42 %), about 3 min left" against the total known at start; "2,100 so far" without one. */
export function progressLine(run: RunRecord, now = Date.now()): string {
  const c = run.counters;
  const figure = progressFigure({ done: c.written + c.unchanged + c.failed + c.skipped, seen: c.pulled + c.skipped, expectedTotal: run.expectedTotal, finished: run.status === 'completed' });
  // One reading has no recent rate: the ETA is from the average rate since the run started.
  const eta = run.status === 'running' && figure.percent !== undefined ? averageEtaMs(figure.done, figure.total, run.startedAt, now) : undefined;
  return `${progressWords(figure)}${eta !== undefined ? `, about ${durationWords(eta)} left` : ''}`;
}

/** The run's connection as people know it: its label when the run started, else its id. */
const connectionText = (run: RunRecord) => (run.platform === 'file' ? 'file' : `${run.platform}${run.connectionLabel ? `: ${run.connectionLabel}` : run.connectionId ? `/${run.connectionId}` : ''}`);

/** How a run is shown: one line in a list, a block for one run. Never holds a secret (records have none). */
export function runLine(run: RunRecord): string {
  const c = run.counters;
  return [run.id.padEnd(26), run.status.padEnd(9), truncate(runName(run), 40).padEnd(40), truncate(connectionText(run), 30).padEnd(30), `${c.pulled} pulled, ${c.written} written, ${c.credits} credits`, run.createdAt].join('  ');
}

function truncate(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** One run in full; `pricing` (VERIFY_HUB_PRICE_PER_1000) adds money to the credits spent. */
export function runBlock(run: RunRecord, pricing?: Pricing): string {
  const c = run.counters;
  const lines = [
    `name       ${runName(run)}`,
    `run        ${run.id}`,
    `status     ${run.status}${run.statusReason ? `: ${run.statusReason}` : ''}`,
    `source     ${run.platform}${run.connectionId ? ` (connection ${run.connectionLabel ? `"${run.connectionLabel}", ` : ''}${run.connectionId})` : ''}, scope ${run.scope}`,
    `options    ${JSON.stringify(run.options)}`,
    `progress   ${progressLine(run)}`,
    `contacts   ${c.pulled} pulled, ${c.skipped} skipped by the source${c.unreadable ? ` (${c.unreadable} could not be read)` : ''}`,
    `results    ${c.verified} verified, ${c.cached} from cache, ${c.rejected ?? 0} rejected, ${c.unknown} unknown`,
    `writes     ${c.written} written, ${c.unchanged} unchanged, ${c.failed} failed`,
    `credits    ${costText(c.credits, pricing)}${run.options.maxCredits !== undefined ? ` of ${run.options.maxCredits} allowed` : ''}${run.estimatedCredits !== undefined ? ` (estimated ${run.estimatedCredits})` : ''}`,
    `created    ${run.createdAt}${run.startedAt ? `, started ${run.startedAt}` : ''}${run.finishedAt ? `, finished ${run.finishedAt}` : ''}`,
  ];
  if (run.resumeAt) lines.push(`resumes    not before ${new Date(run.resumeAt).toISOString()}`);
  return lines.join('\n');
}

/** The run's ledger in plain words, one line per category with rows (the same counts as the run page). */
export function ledgerBlock(ledger: Ledger): string {
  return [`ledger     ${ledger.total.toLocaleString('en-US')} contacts, each in exactly one category:`, ...ledgerLines(ledger).map((line) => `  ${line}`)].join('\n');
}
