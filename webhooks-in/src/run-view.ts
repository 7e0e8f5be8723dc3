import { basename, dirname } from 'node:path';
import { parseScope } from '@verify-hub/core';
import type { RunRecord } from '@verify-hub/sync-jobs';

export interface RunProgress {
  /** Contacts finished one way or another: written, unchanged or failed (skipped records were never pulled). */
  done: number;
  /** Contacts read from the source so far (the denominator while the source is still being paged). */
  pulled: number;
  /** 0..100; 100 once the run completed. */
  percent: number;
}

/**
 * A file run's scope holds the server's path of the upload: answers show the file's name only, and
 * a reason that quotes the path (a read error) loses the folder. The server's layout is nobody's business.
 */
function withoutServerPaths(run: RunRecord): RunRecord {
  const scope = parseScope(run.scope);
  if (scope.kind !== 'file' || !scope.value) return run;
  const folder = dirname(scope.value);
  const view: RunRecord = { ...run, scope: `file:${basename(scope.value)}` };
  if (run.statusReason && folder !== '.') view.statusReason = run.statusReason.split(`${folder}/`).join('').split(folder).join('');
  return view;
}

/** A run as the admin API shows it: the record (no server path) plus a progress figure computed from its counters. */
export function runView(record: RunRecord): RunRecord & { progress: RunProgress } {
  const run = withoutServerPaths(record);
  const c = run.counters;
  // written + unchanged + failed = pulled once every contact is through (sync-jobs README); skipped is outside pulled.
  const done = c.written + c.unchanged + c.failed;
  const percent = run.status === 'completed' ? 100 : c.pulled > 0 ? Math.min(99, Math.floor((done / c.pulled) * 100)) : 0;
  return { ...run, progress: { done, pulled: c.pulled, percent } };
}
