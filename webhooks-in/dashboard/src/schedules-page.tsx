import { useEffect, useState } from 'preact/hooks';
import { ApiError, createSchedule, deleteSchedule, errorMessage, isAbort, listConnections, listSchedules, previewSchedule, scheduleAction } from './api';
import type { ConnectionView, CronPreviewAnswer, ScheduleView } from './api-types';
import { isPlatformConnection } from './connections-page';
import { ErrorAlert, Notice } from './error-alert';
import { rescueFocus } from './focus';
import { formatDateTime, formatRelative, platformName } from './format';
import { INITIAL_WHEN, WhenFields, whenOf, type WhenState } from './schedule-when';

/** Wait this long after the last change before asking the hub to read the schedule. */
const PREVIEW_DEBOUNCE_MS = 300;

const TIMEZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

export function SchedulesPage() {
  const [schedules, setSchedules] = useState<ScheduleView[]>();
  const [connections, setConnections] = useState<ConnectionView[]>([]);
  const [connectionId, setConnectionId] = useState('');
  const [scope, setScope] = useState('all');
  const [when, setWhen] = useState<WhenState>(INITIAL_WHEN);
  // People mean their own clock: the browser's zone by default (the hub stores it with the schedule).
  const [timezone, setTimezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [preview, setPreview] = useState<CronPreviewAnswer>();
  const [previewError, setPreviewError] = useState<ApiError>();
  const [error, setError] = useState<ApiError | Error>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);

  const load = async (signal?: AbortSignal) => {
    try {
      const [scheduleAnswer, connectionAnswer] = await Promise.all([listSchedules(signal), listConnections(signal)]);
      if (signal?.aborted) return;
      setSchedules(scheduleAnswer.schedules);
      const usable = connectionAnswer.connections.filter(isPlatformConnection);
      setConnections(usable);
      setConnectionId((current) => (usable.some((c) => c.id === current) ? current : (usable[0]?.id ?? '')));
    } catch (caught) {
      if (!signal?.aborted) setError(caught as Error);
    }
  };

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, []);

  const scheduleWhen = whenOf(when);
  const whenKey = JSON.stringify(scheduleWhen ?? null);

  // The live preview of the schedule: debounced, and a newer one aborts the older request.
  useEffect(() => {
    setPreviewError(undefined);
    if (!scheduleWhen) {
      setPreview(undefined);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      previewSchedule(scheduleWhen, timezone.trim(), controller.signal).then(
        (answer) => {
          setPreview(answer);
          setPreviewError(undefined);
        },
        (caught: unknown) => {
          if (isAbort(caught)) return;
          setPreview(undefined);
          setPreviewError(caught instanceof ApiError ? caught : new ApiError(0, 'UNKNOWN', errorMessage(caught)));
        },
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [whenKey, timezone]);

  const create = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const connection = connections.find((c) => c.id === connectionId);
    if (!connection) {
      setError(new ApiError(400, 'INVALID_INPUT', 'Connection: choose the connection to sync (add one on the Connections page first).', 'connectionId'));
      return;
    }
    if (!scheduleWhen) {
      setError(new ApiError(400, 'INVALID_INPUT', 'Cron: enter a pattern, for example "0 3 * * 1" for Mondays at 03:00.', 'cron'));
      return;
    }
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const schedule = await createSchedule({
        ...scheduleWhen,
        timezone: timezone.trim() || undefined,
        platform: connection.platform,
        connectionId: connection.id,
        scope: scope.trim() || 'all',
      });
      setNotice(`Schedule created: ${schedule.description}.`);
      await load();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  const act = async (schedule: ScheduleView, action: 'pause' | 'resume' | 'delete') => {
    if (busy) return;
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      if (action === 'delete') await deleteSchedule(schedule.id);
      else await scheduleAction(schedule.id, action);
      await load();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
      rescueFocus();
    }
  };

  // The hub names `body.cron`, `cron`, `preset.time`, ...: the last part is the control's.
  const named = (problem?: ApiError | Error) => (problem instanceof ApiError ? problem.field?.split('.').pop() : undefined);
  const invalid = (field: string) => (named(error) === field || (field !== 'connectionId' && named(previewError) === field) ? 'true' : undefined);
  // Not while busy: a disabled button would drop the focus (create() ignores a second submit itself).
  const canSave = connections.some((c) => c.id === connectionId) && scheduleWhen !== undefined;
  const connectionLabel = (id?: string) => {
    const connection = connections.find((c) => c.id === id);
    return connection ? `${connection.label} (${platformName(connection.platform)})` : (id ?? '—');
  };

  return (
    <>
      <h1 tabIndex={-1}>Schedules</h1>
      <p class="lead">Re-verify a connection's contacts on a schedule: new and stale addresses only, so repeat runs cost little.</p>
      <ErrorAlert id="schedules-error" message={error ? errorMessage(error) : undefined} />
      <Notice message={notice} />

      <form class="schedule-form" onSubmit={create} noValidate>
        <h2>New schedule</h2>
        <div class="form-row">
          <div class="field">
            <label for="schedule-connection">Connection</label>
            <select
              id="schedule-connection"
              value={connectionId}
              aria-invalid={invalid('connectionId')}
              onChange={(event) => setConnectionId(event.currentTarget.value)}
            >
              {connections.length === 0 && <option value="">No connections yet</option>}
              {connections.map((connection) => (
                <option key={connection.id} value={connection.id}>
                  {connectionLabel(connection.id)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="schedule-scope">Scope</label>
            <input id="schedule-scope" type="text" value={scope} aria-invalid={invalid('scope')} onInput={(event) => setScope(event.currentTarget.value)} />
          </div>
        </div>
        <WhenFields state={when} onChange={setWhen} invalid={invalid} />
        <div class="form-row">
          <div class="field">
            <label for="schedule-timezone">Timezone</label>
            <input
              id="schedule-timezone"
              type="text"
              list="timezone-list"
              spellcheck={false}
              autocomplete="off"
              value={timezone}
              aria-invalid={invalid('timezone')}
              onInput={(event) => setTimezone(event.currentTarget.value)}
            />
            <datalist id="timezone-list">
              {TIMEZONES.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </div>
        </div>
        <div id="cron-preview" data-testid="cron-preview" class="cron-preview" aria-live="polite">
          {!scheduleWhen && <p class="muted">Minute, hour, day of month, month, day of week: "0 3 * * 1" is every Monday at 03:00.</p>}
          {scheduleWhen && previewError && <p class="problem">{previewError.message}</p>}
          {scheduleWhen && preview && !previewError && (
            <>
              <p>
                <strong>{preview.description}</strong> ({timezone.trim() || 'UTC'}){preview.cron && <span class="muted small"> · cron <code>{preview.cron}</code></span>}
              </p>
              <p class="small">Next runs:</p>
              <ol class="small">
                {preview.next.map((iso) => (
                  <li key={iso}>
                    <time dateTime={iso}>{formatDateTime(iso, timezone.trim() || undefined)}</time>
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
        {connections.length === 0 && (
          <p class="muted" id="schedule-needs-connection">
            A schedule syncs a connection: add one on the <a href="#/connections">Connections</a> page first.
          </p>
        )}
        <button type="submit" disabled={!canSave} aria-describedby={connections.length === 0 ? 'schedule-needs-connection' : undefined} aria-busy={busy ? 'true' : undefined}>
          Create schedule
        </button>
      </form>

      {schedules === undefined && !error && <p class="muted">Loading schedules…</p>}
      {schedules !== undefined && schedules.length === 0 && <p>No schedules yet.</p>}
      {schedules !== undefined && schedules.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Schedules</caption>
            <thead>
              <tr>
                <th scope="col">Connection</th>
                <th scope="col">Scope</th>
                <th scope="col">When</th>
                <th scope="col">Cron</th>
                <th scope="col">Timezone</th>
                <th scope="col">Next run</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {schedules.map((schedule) => (
                <tr key={schedule.id}>
                  <td>{connectionLabel(schedule.request.connectionId)}</td>
                  <td>{schedule.request.scope}</td>
                  <td>{schedule.description}</td>
                  <td class="mono">{schedule.cron}</td>
                  <td>{schedule.timezone ?? 'UTC'}</td>
                  <td>
                    {!schedule.paused && schedule.next ? (
                      <>
                        <time dateTime={new Date(schedule.next).toISOString()}>{formatDateTime(schedule.next, schedule.timezone)}</time>
                        <span class="muted small block">{formatRelative(schedule.next)}</span>
                      </>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>{schedule.paused ? 'paused' : 'active'}</td>
                  <td class="actions-cell">
                    {/* One element for both, so the focus stays on it when Pause turns into Resume. */}
                    <button type="button" onClick={() => void act(schedule, schedule.paused ? 'resume' : 'pause')}>
                      {schedule.paused ? 'Resume' : 'Pause'}
                    </button>{' '}
                    <button type="button" class="danger" onClick={() => void act(schedule, 'delete')}>
                      Delete
                    </button>
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
