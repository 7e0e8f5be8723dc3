import type { ScheduleWhen } from './api';

export type Repeat = 'day' | 'week' | 'month' | 'cron';

/** What the "when" part of the schedule form holds; `whenOf` turns it into what the hub takes. */
export interface WhenState {
  repeat: Repeat;
  weekday: number;
  day: number;
  time: string;
  cron: string;
}

export const INITIAL_WHEN: WhenState = { repeat: 'week', weekday: 1, day: 1, time: '09:00', cron: '' };

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAYS = Array.from({ length: 28 }, (_, i) => i + 1);

/** The preset or the typed pattern; undefined while the custom pattern is empty. */
export function whenOf(state: WhenState): ScheduleWhen | undefined {
  if (state.repeat === 'cron') return state.cron.trim() ? { cron: state.cron.trim() } : undefined;
  if (state.repeat === 'day') return { preset: { every: 'day', time: state.time } };
  if (state.repeat === 'week') return { preset: { every: 'week', weekday: state.weekday, time: state.time } };
  return { preset: { every: 'month', day: state.day, time: state.time } };
}

/**
 * Presets for people (every day, every week on a day, every month on a day, at a time), and a cron
 * pattern as the advanced option. `invalid(field)` marks the control the hub named.
 */
export function WhenFields({ state, onChange, invalid }: { state: WhenState; onChange: (next: WhenState) => void; invalid: (field: string) => 'true' | undefined }) {
  const set = (patch: Partial<WhenState>) => onChange({ ...state, ...patch });
  return (
    <div class="form-row">
      <div class="field">
        <label for="schedule-repeat">Repeat</label>
        <select id="schedule-repeat" value={state.repeat} onChange={(event) => set({ repeat: event.currentTarget.value as Repeat })}>
          <option value="day">Every day</option>
          <option value="week">Every week</option>
          <option value="month">Every month</option>
          <option value="cron">Custom (cron)</option>
        </select>
      </div>
      {state.repeat === 'week' && (
        <div class="field">
          <label for="schedule-weekday">On</label>
          <select id="schedule-weekday" value={String(state.weekday)} aria-invalid={invalid('weekday')} onChange={(event) => set({ weekday: Number(event.currentTarget.value) })}>
            {WEEKDAYS.map((name, index) => (
              <option key={name} value={String(index)}>
                {name}
              </option>
            ))}
          </select>
        </div>
      )}
      {state.repeat === 'month' && (
        <div class="field">
          <label for="schedule-day">On day</label>
          <select id="schedule-day" value={String(state.day)} aria-invalid={invalid('day')} aria-describedby="schedule-day-hint" onChange={(event) => set({ day: Number(event.currentTarget.value) })}>
            {DAYS.map((day) => (
              <option key={day} value={String(day)}>
                {day}
              </option>
            ))}
          </select>
          <span id="schedule-day-hint" class="muted small block">
            1 to 28: every month has them.
          </span>
        </div>
      )}
      {state.repeat !== 'cron' && (
        <div class="field">
          <label for="schedule-time">At</label>
          <input id="schedule-time" type="time" required value={state.time} aria-invalid={invalid('time')} onInput={(event) => set({ time: event.currentTarget.value })} />
        </div>
      )}
      {state.repeat === 'cron' && (
        <div class="field">
          <label for="schedule-cron">Cron</label>
          <input
            id="schedule-cron"
            type="text"
            class="mono"
            placeholder="0 3 * * 1"
            spellcheck={false}
            autocomplete="off"
            value={state.cron}
            aria-invalid={invalid('cron')}
            aria-describedby="cron-preview"
            onInput={(event) => set({ cron: event.currentTarget.value })}
          />
        </div>
      )}
    </div>
  );
}
