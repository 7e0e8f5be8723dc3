import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage, getBreakdown, getRun, runAction, runLinks } from './api';
import type { RunBreakdownView, RunCounters, RunView } from './api-types';
import { FINISHED_STATUSES } from './api-types';
import { ErrorAlert } from './error-alert';
import { formatDateTime, formatNumber, formatRelative, platformName, runDuration, scopeText } from './format';
import { RiskChart } from './risk-chart';
import { FileDownloads } from './run-downloads';
import { RunControls, runControls } from './run-controls';
import { navigate, runHref } from './router';
import { useAction } from './use-action';
import { usePolling } from './use-polling';

const LIVE_POLL_MS = 1000;
/** A paused run may resume by itself (rate limit, engine back): look less often. */
const PAUSED_POLL_MS = 5000;
/** While the run's events stream is open, the poll only refreshes the breakdown (the run itself is pushed). */
const EVENTS_POLL_MS = 5000;
const ERROR_RETRY_MS = 5000;

const COUNTERS: { key: keyof RunCounters; label: string }[] = [
  { key: 'pulled', label: 'Pulled' },
  { key: 'skipped', label: 'Skipped' },
  { key: 'unreadable', label: 'Could not be read' },
  { key: 'cached', label: 'Cached' },
  { key: 'verified', label: 'Verified' },
  { key: 'unknown', label: 'Unknown' },
  { key: 'written', label: 'Written' },
  { key: 'unchanged', label: 'Unchanged' },
  { key: 'failed', label: 'Failed' },
  { key: 'credits', label: 'Credits' },
];

type Action = 'pause' | 'resume' | 'cancel' | 'recheck-unknowns';

export function RunPage({ id }: { id: string }) {
  const [run, setRun] = useState<RunView>();
  const [breakdown, setBreakdown] = useState<RunBreakdownView>();
  const [error, setError] = useState<string>();
  const { busy, perform } = useAction<Action>((caught) => setError(errorMessage(caught)));
  // The tab is named after the run once its name is known (the router names it by id until then).
  const name = run?.name;
  useEffect(() => {
    if (name) document.title = `${name} · verify-hub`;
  }, [name]);

  // Live updates by server-sent events (GET /api/runs/:id/events, the session cookie); polling every second when they are not available.
  const pushed = useRef(false);
  const refreshNow = useRef<() => void>();
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(runEventsUrl(id));
    source.addEventListener('open', () => (pushed.current = true));
    source.addEventListener('run', (event) => {
      const view = JSON.parse((event as MessageEvent<string>).data) as RunView;
      setRun(view);
      // The stream ends with the run: no reconnection to a finished run; one last poll for the final breakdown.
      if (FINISHED_STATUSES.includes(view.status)) {
        source.close();
        pushed.current = false;
        refreshNow.current?.();
      }
    });
    source.addEventListener('error', () => (pushed.current = false));
    return () => {
      pushed.current = false;
      source.close();
    };
  }, [id]);

  const refresh = usePolling(
    async (signal) => {
      const [runAnswer, breakdownAnswer] = await Promise.allSettled([getRun(id, signal), getBreakdown(id, signal)]);
      if (signal.aborted) return null;
      if (runAnswer.status === 'rejected') {
        const caught = runAnswer.reason as unknown;
        setError(errorMessage(caught));
        // A run that does not exist will not appear; a lost session goes to sign-in.
        return caught instanceof ApiError && (caught.status === 404 || caught.status === 401 || caught.status === 400) ? null : ERROR_RETRY_MS;
      }
      setRun(runAnswer.value);
      if (breakdownAnswer.status === 'fulfilled') setBreakdown(breakdownAnswer.value);
      setError(undefined);
      const status = runAnswer.value.status;
      if (FINISHED_STATUSES.includes(status)) return null; // nothing will change any more
      return status === 'paused' ? PAUSED_POLL_MS : pushed.current ? EVENTS_POLL_MS : LIVE_POLL_MS;
    },
    [id],
  );

  refreshNow.current = refresh;

  const act = (action: Action) =>
    perform(action, async () => {
      setError(undefined);
      const answer = await runAction(id, action);
      if (action === 'recheck-unknowns') return navigate(runHref(answer.id));
      setRun(answer);
      refresh();
    });

  const status = run?.status;
  const finished = status !== undefined && FINISHED_STATUSES.includes(status);
  const { canPause, canResume, canCancel } = runControls(status);
  const links = runLinks(id);
  const now = Date.now();

  return (
    <>
      <h1 tabIndex={-1}>{run?.name ?? `Run ${id}`}</h1>
      <ErrorAlert message={error} />
      {!run && !error && <p class="muted">Loading the run…</p>}
      {/* A finished file run is there to be downloaded: its files come first. */}
      {run?.platform === 'file' && run.status === 'completed' && !run.options.dryRun && <FileDownloads id={id} />}
      {run && (
        <>
          <section class="run-progress" aria-live="polite">
            <p class="run-status-line">
              Status: <strong data-testid="run-status" class={`status status-${run.status}`}>{run.status}</strong>
              {run.statusReason && <span class="muted"> — {run.statusReason}</span>}
              {run.status === 'paused' && run.resumeAt && <span class="muted"> (resumes {formatRelative(run.resumeAt, now)})</span>}
            </p>
            {/* Without a total known up front (a platform that gives none) the bar is indeterminate: no value, no invented percentage. */}
            <div
              class="progressbar"
              role="progressbar"
              aria-label="Progress"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={run.progress.percent}
              aria-valuetext={run.progress.percent !== undefined ? `${run.progress.percent}%: ${progressText(run.progress)}` : progressText(run.progress)}
            >
              <div class="progressbar-fill" style={{ width: `${run.progress.percent ?? 0}%` }} />
            </div>
            <p class="muted small" data-testid="run-progress">
              {run.progress.percent !== undefined ? `${run.progress.percent} % — ` : ''}
              {progressText(run.progress)}
              {run.status === 'running' && run.progress.etaSeconds !== undefined ? ` — about ${etaText(run.progress.etaSeconds)} left` : ''}
            </p>
          </section>

          <ul class="facts">
            <li>
              Source: {platformName(run.platform)}
              {run.connectionId && run.platform !== 'file' ? ` (${run.connectionLabel ?? run.connectionId})` : ''}
            </li>
            <li>Run: {run.id}</li>
            <li>Scope: {scopeText(run.scope)}</li>
            <li>
              Created: <time dateTime={run.createdAt}>{formatDateTime(run.createdAt)}</time>
            </li>
            {run.startedAt && (
              <li>
                Started: <time dateTime={run.startedAt}>{formatDateTime(run.startedAt)}</time>
              </li>
            )}
            {run.finishedAt && (
              <li>
                Finished: <time dateTime={run.finishedAt}>{formatDateTime(run.finishedAt)}</time>
              </li>
            )}
            {runDuration(run, now) && <li>Duration: {runDuration(run, now)}</li>}
            <li data-testid="run-spent">Spent: {run.spent.text}</li>
            {run.estimatedCredits !== undefined && <li>Estimated credits: {formatNumber(run.estimatedCredits)}</li>}
            {run.options.maxCredits !== undefined && <li>Credit limit: {formatNumber(run.options.maxCredits)}</li>}
            {run.options.dryRun && <li>Dry run: nothing is written back</li>}
          </ul>

          <dl class="counters">
            {/* Only a file has records that cannot be read. */}
            {COUNTERS.filter(({ key }) => key !== 'unreadable' || run.platform === 'file').map(({ key, label }) => (
              <div key={key}>
                <dt>{label}</dt>
                <dd data-testid={`counter-${key}`}>{run.counters[key] ?? 0}</dd>
              </div>
            ))}
          </dl>

          {(canPause || canResume || canCancel || (finished && run.counters.unknown > 0)) && (
            <div class="actions">
              <RunControls status={run.status} busy={busy === 'recheck-unknowns' ? undefined : busy} onAct={(action) => void act(action)} />
              {finished && run.counters.unknown > 0 && (
                <button type="button" aria-busy={busy === 'recheck-unknowns' ? 'true' : undefined} onClick={() => void act('recheck-unknowns')}>
                  Re-check unknowns
                </button>
              )}
            </div>
          )}

          {breakdown && <Results breakdown={breakdown} />}

          <section class="downloads" aria-labelledby="report-heading">
            <h2 id="report-heading">Per-record report</h2>
            <ul>
              <li>
                <a href={links.report} download>
                  Download per-record report
                </a>
              </li>
            </ul>
            {run.platform === 'file' && run.status !== 'completed' && !finished && (
              <p class="muted small">The cleaned file and the lists by category can be downloaded once the run completed.</p>
            )}
          </section>
        </>
      )}
    </>
  );
}

/** The run's one ledger: every contact once, in its final category, with what it means (the counts of the CLI, summary.json and the files). */
function Ledger({ breakdown }: { breakdown: RunBreakdownView }) {
  const { ledger, categories } = breakdown;
  if (!ledger || !categories) return null;
  return (
    <div class="table-wrap">
      <table class="ledger">
        <caption>Every contact, once ({formatNumber(ledger.total)} in all)</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col" class="num">Contacts</th>
            <th scope="col">What it means</th>
          </tr>
        </thead>
        <tbody>
          {categories.length === 0 && (
            <tr>
              <td colSpan={3} class="muted">
                No contacts yet.
              </td>
            </tr>
          )}
          {categories.map((c) => (
            <tr key={c.category} data-category={c.category}>
              <th scope="row">{c.label}</th>
              <td class="num">{formatNumber(c.count)}</td>
              <td>{c.explanation}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Results({ breakdown }: { breakdown: RunBreakdownView }) {
  return (
    <section class="results" aria-labelledby="results-heading">
      <h2 id="results-heading">Results</h2>
      <Ledger breakdown={breakdown} />
      <div class="results-grid">
        <RiskChart risk={breakdown.risk} />
        <div class="table-wrap">
          <table>
            <caption>Reasons</caption>
            <thead>
              <tr>
                <th scope="col">Reason</th>
                <th scope="col" class="num">Contacts</th>
              </tr>
            </thead>
            <tbody>
              {breakdown.reasons.length === 0 && (
                <tr>
                  <td colSpan={2} class="muted">
                    No results yet.
                  </td>
                </tr>
              )}
              {breakdown.reasons.map((row) => (
                <tr key={row.reason}>
                  <td>
                    {row.words ?? row.reason.replace(/_/g, ' ')} <span class="muted small">({row.reason})</span>
                  </td>
                  <td class="num">{formatNumber(row.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      {breakdown.failuresTotal > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Failures</caption>
            <thead>
              <tr>
                <th scope="col">Contact</th>
                <th scope="col">Email</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {breakdown.failures.map((row, i) => (
                <tr key={`${row.contactId}-${i}`}>
                  <td>{row.contactId}</td>
                  <td>{row.email}</td>
                  <td>{row.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {breakdown.failuresTotal > breakdown.failures.length && (
            <p class="muted small">
              Showing the first {formatNumber(breakdown.failures.length)} of {formatNumber(breakdown.failuresTotal)} failures; the per-record report has them all.
            </p>
          )}
        </div>
      )}
    </section>
  );
}

/** "2,100 of 5,000 contacts done" against the total known at start; "2,100 contacts done so far" without one (a platform that gives no total). */
function progressText(progress: RunView['progress']): string {
  return progress.total !== undefined ? `${formatNumber(progress.done)} of ${formatNumber(progress.total)} contacts done` : `${formatNumber(progress.done)} contacts done so far`;
}

function etaText(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, seconds)} s`;
  const min = Math.round(seconds / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

function runEventsUrl(id: string): string {
  return `/api/runs/${encodeURIComponent(id)}/events`;
}
