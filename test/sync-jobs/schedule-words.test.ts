import { InputError } from '@verify-hub/core';
import { describeCron, parseCron, presetOf, presetToCron, previewCron } from '@verify-hub/sync-jobs';

/** The message of the InputError `run` throws (fails the test when it throws none, or another kind). */
function refusal(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('schedule presets', () => {
  it('turns each preset into the cron pattern BullMQ runs, and reads it back', () => {
    const cases = [
      [{ every: 'day', time: '09:00' }, '0 9 * * *', 'Every day at 09:00'],
      [{ every: 'week', weekday: 1, time: '09:00' }, '0 9 * * 1', 'Every Monday at 09:00'],
      [{ every: 'week', weekday: 0, time: '23:45' }, '45 23 * * 0', 'Every Sunday at 23:45'],
      [{ every: 'month', day: 15, time: '06:30' }, '30 6 15 * *', 'Every month on day 15 at 06:30'],
    ] as const;
    for (const [preset, cron, words] of cases) {
      expect(presetToCron(preset)).toBe(cron);
      expect(presetOf(cron)).toEqual(preset);
      expect(describeCron(cron)).toBe(words);
      expect(previewCron(cron, 'Europe/Paris', 2).description).toBe(words);
    }
    // A typed pattern that is a preset reads as one; 7 is Sunday too.
    expect(describeCron('0 9 * * 7')).toBe('Every Sunday at 09:00');
    expect(describeCron('5 4 * * *')).toBe('Every day at 04:05');
    // Day 31 is not every month's: not a preset, so cronstrue says it as it is.
    expect(presetOf('0 9 31 * *')).toBeUndefined();
    expect(describeCron('0 9 31 * *')).toBe('At 09:00, on day 31 of the month');
  });

  it('puts any other pattern in cronstrue words on a 24-hour clock', () => {
    expect(presetOf('*/15 * * * *')).toBeUndefined();
    expect(describeCron('*/15 * * * *')).toBe('Every 15 minutes');
    expect(describeCron('0 18 * * 1-5')).toBe('At 18:00, Monday through Friday');
  });

  it('refuses a preset naming the field at fault', () => {
    expect(refusal(() => presetToCron({ every: 'week', weekday: 9, time: '09:00' }))).toMatchObject({ field: 'preset.weekday', message: 'preset.weekday: must be 0 (Sunday) to 6 (Saturday)' });
    expect(refusal(() => presetToCron({ every: 'day', time: '25:00' }))).toMatchObject({ field: 'preset.time' });
    expect(refusal(() => presetToCron({ every: 'month', day: 31, time: '09:00' })).message).toMatch(/preset.day: must be a day from 1 to 28/);
    expect(refusal(() => presetToCron({ every: 'hour', time: '09:00' }))).toMatchObject({ field: 'preset.every', message: 'preset.every: must be day, week or month' });
  });
});

describe('cron errors in plain words', () => {
  const cases: [string, string][] = [
    ['0 9 * * 8', 'cron: the 5th field (day of week) must be 0-7 (0 and 7 are Sunday), * or a name like MON; it is "8"'],
    ['61 9 * * *', 'cron: the 1st field (minute) must be 0-59, * or a step like */15; it is "61"'],
    ['0 25 * * *', 'cron: the 2nd field (hour) must be 0-23, * or a step like */6; it is "25"'],
    ['0 9 32 * *', 'cron: the 3rd field (day of month) must be 1-31, * or L (the last day); it is "32"'],
    ['0 9 * FOO *', 'cron: the 4th field (month) must be 1-12, * or a name like JAN; it is "FOO"'],
    ['*/0 9 * * *', 'cron: the 1st field (minute) must be 0-59, * or a step like */15; it is "*/0"'],
    ['0 9 * *', 'cron: it has 4 fields; a pattern has 5: minute, hour, day of month, month, day of week (for example 0 9 * * 1 is every Monday at 09:00)'],
    ['0 0 9 * * * *', 'cron: it has 7 fields; a pattern has 5: minute, hour, day of month, month, day of week (for example 0 9 * * 1 is every Monday at 09:00)'],
    ['  ', 'cron: it is empty (for example 0 9 * * 1 is every Monday at 09:00)'],
  ];
  it.each(cases)('%s', (cron, message) => {
    const error = refusal(() => parseCron(cron));
    expect(error.field).toBe('cron');
    expect(error.message).toBe(message);
    // Never the library's own wording.
    expect(error.message).not.toMatch(/constraint|expected range|invalid characters/i);
  });

  it('counts a leading seconds field in a 6-field pattern', () => {
    expect(refusal(() => parseCron('70 0 9 * * *')).message).toBe('cron: the 1st field (second) must be 0-59, * or a step like */15; it is "70"');
    expect(refusal(() => parseCron('0 0 9 * * 9')).message).toMatch(/^cron: the 6th field \(day of week\)/);
  });
});
