import type { PlatformView } from './api-types';

/** Numbers, sizes, times and durations as people read them, in the browser's language. */

const numberFormat = new Intl.NumberFormat();
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const formatNumber = (n: number) => numberFormat.format(n);

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${formatNumber(bytes)} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(value)} ${units[unit]}`;
}

export function formatDateTime(value: string | number, timeZone?: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  if (!timeZone) return dateTimeFormat.format(date);
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone, timeZoneName: 'short' }).format(date);
  } catch {
    return dateTimeFormat.format(date); // a zone the browser does not know
  }
}

const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 7],
  ['week', 4.35],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whole calendar days between two moments in the browser's time zone (rounded: a DST day is 23 or 25 hours). */
function calendarDays(from: number, to: number): number {
  const midnight = (t: number) => new Date(t).setHours(0, 0, 0, 0);
  return Math.round((midnight(to) - midnight(from)) / DAY_MS);
}

/** "3 minutes ago", "in 2 hours", "tomorrow" (the next calendar day, not merely 24 hours on). */
export function formatRelative(value: string | number, now = Date.now()): string {
  const time = new Date(value).getTime();
  if (Number.isNaN(time)) return String(value);
  let amount = (time - now) / 1000;
  for (const [unit, size] of RELATIVE_STEPS) {
    if (unit === 'day' && Math.abs(amount) < size) return relativeFormat.format(calendarDays(now, time), 'day');
    if (Math.abs(amount) < size) return relativeFormat.format(Math.round(amount), unit);
    amount /= size;
  }
  return dateTimeFormat.format(new Date(time));
}

/** "45 s", "3 min 12 s", "2 h 5 min", "3 d 4 h". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** How long a run took, or has taken so far; undefined before it started. */
export function runDuration(run: { startedAt?: string; finishedAt?: string }, now = Date.now()): string | undefined {
  if (!run.startedAt) return undefined;
  const start = new Date(run.startedAt).getTime();
  const end = run.finishedAt ? new Date(run.finishedAt).getTime() : now;
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined;
  return formatDuration(end - start);
}

/** The registered platforms' labels, from GET /api/platforms (loaded once signed in): the dashboard names none itself. */
const platformViews = new Map<string, PlatformView>();

export function rememberPlatforms(platforms: readonly PlatformView[]): void {
  for (const platform of platforms) platformViews.set(platform.id, platform);
}

export const platformName = (platform: string) => platformViews.get(platform)?.label ?? platform;
export const platformCard = (platform: string) => platformViews.get(platform)?.card;

/** A file run's scope is the server's path of the upload: show the file's name only. */
export function scopeText(scope: string): string {
  if (scope.startsWith('file:')) return scope.slice(5).split(/[\\/]/).pop() || 'file';
  return scope;
}
