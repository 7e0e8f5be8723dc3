import type { RunRecord } from '@verify-hub/sync-jobs';

export interface RunProgress {
  /** Contacts finished one way or another: written, unchanged or failed (skipped records were never pulled). */
  done: number;
  /** Contacts read from the source so far (the denominator while the source is still being paged). */
  pulled: number;
  /** 0..100; 100 once the run completed. */
  percent: number;
}

/** A run as the admin API shows it: the record plus a progress figure computed from its counters. */
export function runView(run: RunRecord): RunRecord & { progress: RunProgress } {
  const c = run.counters;
  // written + unchanged + failed = pulled once every contact is through (sync-jobs README); skipped is outside pulled.
  const done = c.written + c.unchanged + c.failed;
  const percent = run.status === 'completed' ? 100 : c.pulled > 0 ? Math.min(99, Math.floor((done / c.pulled) * 100)) : 0;
  return { ...run, progress: { done, pulled: c.pulled, percent } };
}
