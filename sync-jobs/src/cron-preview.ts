import { InputError } from '@verify-hub/core';
import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { toString as cronInWords } from 'cronstrue';
import type { CronPreview } from './contracts';
import { cronProblem } from './cron-problems';
import { presetInWords, presetOf } from './schedule-presets';

/** The zone of a schedule given none: workers in different zones then agree on when it fires. */
export const DEFAULT_TIMEZONE = 'UTC';

/** Throws InputError('timezone') unless `timezone` is an IANA zone this runtime knows (Intl decides). */
export function checkTimezone(timezone: string): void {
  if (!timezone.trim()) throw new InputError('timezone', 'must be an IANA time zone such as UTC or Europe/Paris');
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
  } catch {
    throw new InputError('timezone', `"${timezone}" is not a known time zone (for example UTC, Europe/Paris, America/New_York)`);
  }
}

/**
 * Parses a cron pattern the way BullMQ's job schedulers do (cron-parser, the same version: 5 fields,
 * or 6 with seconds first). Throws InputError('cron') for one it cannot read.
 */
export function parseCron(cron: string, timezone = DEFAULT_TIMEZONE, currentDate?: Date): CronExpression {
  checkTimezone(timezone);
  const problem = cronProblem(cron);
  if (problem) throw new InputError('cron', problem);
  try {
    return CronExpressionParser.parse(cron, { tz: timezone, currentDate });
  } catch {
    throw new InputError('cron', 'not a pattern the scheduler can read: check each field (minute, hour, day of month, month, day of week)');
  }
}

/** The pattern in words (cronstrue) and its next `count` occurrences as UTC ISO timestamps, computed in `timezone`. */
export function previewCron(cron: string, timezone = DEFAULT_TIMEZONE, count = 5, now = new Date()): CronPreview {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new InputError('count', 'must be a whole number from 1 to 100');
  const expression = parseCron(cron, timezone, now);
  const next = expression.take(count).map((date) => date.toDate().toISOString());
  return { description: describeCron(cron), next };
}

/**
 * A preset's pattern in its own words ("Every Monday at 09:00"), any other in cronstrue's (24-hour
 * clock); cron-parser decides what is valid, and a pattern cronstrue cannot put in words is shown as it is.
 */
export function describeCron(cron: string): string {
  const preset = presetOf(cron);
  if (preset) return presetInWords(preset);
  try {
    return cronInWords(cron, { throwExceptionOnParseError: true, use24HourTimeFormat: true });
  } catch {
    return cron;
  }
}
