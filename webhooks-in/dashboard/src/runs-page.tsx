import { useState } from 'preact/hooks';
import { ApiError, errorMessage, listRuns, runAction } from './api';
import type { RunListQuery, RunSource, RunStatus, RunView } from './api-types';
import { ErrorAlert } from './error-alert';
import { formatDateTime, formatNumber, formatRelative, platformName, runDuration } from './format';
import { RunControls, type RunControl } from './run-controls';
import { runHref } from './router';
import { useAction } from './use-action';
import { usePolling } from './use-polling';

const LIVE_POLL_MS = 1000;
/** With nothing running the list is still refreshed now and then: a schedule may start a run. */
const IDLE_POLL_MS = 10_000;
const ERROR_RETRY_MS = 5000;

const STATUSES: RunStatus[] = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'];

export function RunsPage() {
  const [runs, setRuns] = useState<RunView[]>();
  const [error, setError] = useState<string>();
  const [filter, setFilter] = useState<RunListQuery>({});
  const filtered = Boolean(filter.source || filter.status || filter.q?.trim());

  const { busy, perform } = useAction<{ id: string; action: RunControl }>((caught) => setError(errorMessage(caught)));

  const refresh = usePolling(async (signal) => {
    try {
      const answer = await listRuns(50, filter, signal);
      if (signal.aborted) return null;
      setRuns(answer.runs);
      setError(undefined);
      return answer.runs.some((run) => run.status === 'queued' || run.status === 'running') ? LIVE_POLL_MS : IDLE_POLL_MS;
    } catch (caught) {
      if (signal.aborted) return null;
      setError(errorMessage(caught));
      return caught instanceof ApiError && caught.status === 401 ? null : ERROR_RETRY_MS;
    }
  }, [filter.source, filter.status, filter.q]);

  const act = (run: RunView, action: RunControl) =>
    perform({ id: run.id, action }, async () => {
      setError(undefined);
      const answer = await runAction(run.id, action);
      setRuns((current) => current?.map((r) => (r.id === answer.id ? answer : r)));
      refresh();
    });

  const live = runs?.filter((run) => run.status === 'queued' || run.status === 'running').length ?? 0;
  const now = Date.now();

  return (
    <>
      <h1 tabIndex={-1}>Runs</h1>
      <ErrorAlert message={error} />
      <form role="search" aria-label="Find runs" class="form-row run-filters" onSubmit={(event) => event.preventDefault()}>
        <div class="field">
          <label for="run-search">Search by name</label>
          <input id="run-search" type="search" value={filter.q ?? ''} onInput={(event) => setFilter({ ...filter, q: event.currentTarget.value })} />
        </div>
        <div class="field">
          <label for="run-source">Source</label>
          <select id="run-source" value={filter.source ?? ''} onChange={(event) => setFilter({ ...filter, source: (event.currentTarget.value || undefined) as RunSource | undefined })}>
            <option value="">Files and platforms</option>
            <option value="file">Files</option>
            <option value="platform">Platforms</option>
          </select>
        </div>
        <div class="field">
          <label for="run-status">Status</label>
          <select id="run-status" value={filter.status ?? ''} onChange={(event) => setFilter({ ...filter, status: (event.currentTarget.value || undefined) as RunStatus | undefined })}>
            <option value="">Any status</option>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </div>
      </form>
      <p aria-live="polite" class="muted" data-testid="runs-summary">
        {runs === undefined
          ? 'Loading runs…'
          : filtered
            ? `${runs.length} ${runs.length === 1 ? 'run matches' : 'runs match'}.`
            : live > 0
              ? `${live} ${live === 1 ? 'run' : 'runs'} in progress.`
              : 'No run in progress.'}
      </p>
      {runs !== undefined && runs.length === 0 && !filtered && (
        <p>No runs yet: clean a file, or start a sync from a connection.</p>
      )}
      {runs !== undefined && runs.length > 0 && (
        <div class="table-wrap">
          <table class="runs">
            <caption>Runs</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Source</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Progress</th>
                <th scope="col" class="num">Pulled</th>
                <th scope="col" class="num">Verified</th>
                <th scope="col" class="num">Written</th>
                <th scope="col" class="num">Failed</th>
                <th scope="col" class="num">Credits</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.id}>
                  <td class="run-name">
                    <a href={runHref(run.id)}>{run.name}</a>
                    <span class="muted small block">{run.id}</span>
                  </td>
                  <td>
                    {platformName(run.platform)}
                    {run.platform !== 'file' && (run.connectionLabel || run.connectionId) && <span class="muted small block">{run.connectionLabel ?? run.connectionId}</span>}
                  </td>
                  <td>
                    <span class={`status status-${run.status}`}>{run.status}</span>
                    {run.options.dryRun && <span class="muted small block">dry run</span>}
                  </td>
                  <td>
                    {run.startedAt || run.createdAt ? (
                      <time dateTime={run.startedAt ?? run.createdAt} title={formatDateTime(run.startedAt ?? run.createdAt)}>
                        {formatRelative(run.startedAt ?? run.createdAt, now)}
                      </time>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{runDuration(run, now) ?? '—'}</td>
                  <td class="progress-cell">
                    <span class="mini-bar" aria-hidden="true">
                      <span class="mini-fill" style={{ width: `${run.progress.percent ?? 0}%` }} />
                    </span>{' '}
                    {run.progress.percent !== undefined ? `${run.progress.percent} %` : `${run.progress.done} so far`}
                  </td>
                  <td class="num">{run.counters.pulled}</td>
                  <td class="num">{run.counters.verified}</td>
                  <td class="num">{run.counters.written}</td>
                  <td class="num">{run.counters.failed}</td>
                  <td class="num">
                    {formatNumber(run.spent.credits)}
                    {run.spent.money && <span class="muted small block">{run.spent.money.text}</span>}
                  </td>
                  <td class="actions-cell">
                    <RunControls status={run.status} subject={run.id} busy={busy?.id === run.id ? busy.action : undefined} onAct={(action) => void act(run, action)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
