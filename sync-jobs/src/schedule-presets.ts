import { InputError, type SchedulePreset } from '@verify-hub/core';
import { z } from 'zod';

/**
 * The schedules people pick (every day, every week on a day, every month on a day, at HH:MM), as cron
 * patterns: the store keeps only the pattern, and `presetOf` reads a preset back from one, so the list
 * says "Every Monday at 09:00" whether the schedule was made from a preset or typed as that cron.
 */
export type { SchedulePreset } from '@verify-hub/core';

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const Time = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day as HH:MM, 00:00 to 23:59');

/** The preset's shape, for the hub's body and query validation (each rule names its field). */
export const SchedulePresetSchema = z.discriminatedUnion('every', [
  z.strictObject({ every: z.literal('day'), time: Time }),
  z.strictObject({ every: z.literal('week'), weekday: z.coerce.number().int().min(0, 'must be 0 (Sunday) to 6 (Saturday)').max(6, 'must be 0 (Sunday) to 6 (Saturday)'), time: Time }),
  // Days 29 to 31 are missing from some months, where such a schedule would not run at all.
  z.strictObject({ every: z.literal('month'), day: z.coerce.number().int().min(1, 'must be a day from 1 to 28').max(28, 'must be a day from 1 to 28 (every month has it)'), time: Time }),
], { error: () => 'must be day, week or month' });

/** The cron pattern (minute hour day-of-month month day-of-week) of a preset checked by SchedulePresetSchema. */
export function presetToCron(input: unknown): string {
  const parsed = SchedulePresetSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(['preset', ...issue.path.map(String)].join('.'), issue.message);
  }
  const preset = parsed.data;
  const [hour, minute] = preset.time.split(':').map(Number) as [number, number];
  if (preset.every === 'day') return `${minute} ${hour} * * *`;
  if (preset.every === 'week') return `${minute} ${hour} * * ${preset.weekday}`;
  return `${minute} ${hour} ${preset.day} * *`;
}

const NUMBER = /^\d{1,2}$/;

/** The preset a cron pattern is, when it is one (plain numbers in minute and hour, one day or none). */
export function presetOf(cron: string): SchedulePreset | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  if (!NUMBER.test(minute) || !NUMBER.test(hour) || month !== '*' || Number(minute) > 59 || Number(hour) > 23) return undefined;
  const time = `${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
  if (dayOfMonth === '*' && dayOfWeek === '*') return { every: 'day', time };
  if (dayOfMonth === '*' && NUMBER.test(dayOfWeek) && Number(dayOfWeek) <= 7) return { every: 'week', weekday: Number(dayOfWeek) % 7, time };
  // Days 29-31 are not "every month" (some months have none): cronstrue's words say "on day 31 of the month".
  if (dayOfWeek === '*' && NUMBER.test(dayOfMonth) && Number(dayOfMonth) >= 1 && Number(dayOfMonth) <= 28) return { every: 'month', day: Number(dayOfMonth), time };
  return undefined;
}

/** "Every day at 09:00", "Every Monday at 09:00", "Every month on day 1 at 09:00". */
export function presetInWords(preset: SchedulePreset): string {
  if (preset.every === 'day') return `Every day at ${preset.time}`;
  if (preset.every === 'week') return `Every ${WEEKDAYS[preset.weekday]} at ${preset.time}`;
  return `Every month on day ${preset.day} at ${preset.time}`;
}
