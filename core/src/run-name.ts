import { parseScope } from './connector';

/**
 * Runs are named for people: a file run by its upload's file name, a platform run by what the
 * connector calls its scope (an audience's or list's name). These are the fallbacks when nothing
 * better is known (a run from before names, a platform that did not answer): the scope in words.
 */

/** The last part of a path, either slash. */
const fileName = (path: string) => path.split(/[\\/]/).pop() || 'file';

/** "All contacts", "List 42", "Audience a1b2c3", "Segment 7 of audience a1b2c3", "Changed since 2026-01-31 00:00 UTC", "leads.csv". */
export function scopeInWords(scopeText: string): string {
  const scope = parseScope(scopeText);
  const value = scope.value ?? '';
  switch (scope.kind) {
    case 'all':
      return 'All contacts';
    case 'list':
      return `List ${value}`;
    case 'audience':
      return `Audience ${value}`;
    case 'segment': {
      const [list, segment] = value.split(':');
      return segment ? `Segment ${segment} of audience ${list}` : `Segment ${value}`;
    }
    case 'changed-since':
      return `Changed since ${sinceInWords(value)}`;
    case 'file':
      return fileName(value);
    case 'recheck':
      return `Re-check of ${value}`;
    default:
      return scopeText;
  }
}

/** `changed-since:` takes an optional audience before the time (Mailchimp): the time in words, with it. */
function sinceInWords(value: string): string {
  const m = /^([A-Za-z0-9]+):(\d{4}-\d{2}-\d{2}.*)$/.exec(value);
  const time = m ? m[2]! : value;
  const date = new Date(time);
  const when = Number.isNaN(date.getTime()) ? time : timeInWords(date);
  return m ? `${when} (audience ${m[1]})` : when;
}

/** A run's name: the one it was given at start, else its scope in words. */
export function runName(run: { name?: string; scope: string }): string {
  return run.name || scopeInWords(run.scope);
}

/** "2026-01-31 00:00 UTC": a time as run names say it (the same in every time zone). */
export function timeInWords(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
