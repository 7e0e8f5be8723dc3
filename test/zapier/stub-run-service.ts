import type { RunBreakdown, RunRecord, RunService } from '@verify-hub/sync-jobs';

/**
 * The part of the RunService contract the hub's completion webhooks and run list use: runs kept in
 * memory, `finish` tells the listeners once. Everything else is out of this suite's scope.
 */
export class StubRunService implements RunService {
  private readonly runs = new Map<string, RunRecord>();
  private readonly listeners = new Set<(run: RunRecord) => void>();

  add(run: Partial<RunRecord> & { id: string }): RunRecord {
    const record: RunRecord = {
      platform: 'mailchimp',
      scope: 'audience:4b7e21c9d0',
      options: {},
      status: 'running',
      counters: { pulled: 0, skipped: 0, cached: 0, verified: 0, unknown: 0, written: 0, unchanged: 0, failed: 0, credits: 0 },
      createdAt: new Date().toISOString(),
      ...run,
    };
    this.runs.set(record.id, record);
    return record;
  }

  finish(id: string, status: 'completed' | 'failed' | 'cancelled', counters: Partial<RunRecord['counters']> = {}): RunRecord {
    const run = this.runs.get(id)!;
    const done = { ...run, status, finishedAt: new Date().toISOString(), counters: { ...run.counters, ...counters } };
    this.runs.set(id, done);
    for (const listener of this.listeners) listener(done);
    return done;
  }

  async get(id: string) {
    return this.runs.get(id);
  }
  async list(filter: { status?: RunRecord['status']; limit?: number } = {}) {
    return [...this.runs.values()].filter((r) => !filter.status || r.status === filter.status).slice(0, filter.limit ?? 50);
  }
  onRunFinished(listener: (run: RunRecord) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  start(): Promise<RunRecord> {
    throw new Error('not used by the Zapier tests');
  }
  cancel(): Promise<RunRecord> {
    throw new Error('not used by the Zapier tests');
  }
  resume(): Promise<RunRecord> {
    throw new Error('not used by the Zapier tests');
  }
  recheckUnknowns(): Promise<RunRecord> {
    throw new Error('not used by the Zapier tests');
  }
  report(): AsyncIterable<never> {
    throw new Error('not used by the Zapier tests');
  }
  enqueueEvent(): Promise<{ queued: boolean }> {
    throw new Error('not used by the Zapier tests');
  }
  pause(): Promise<RunRecord> {
    throw new Error('not used by the Zapier tests');
  }
  breakdown(): Promise<RunBreakdown> {
    throw new Error('not used by the Zapier tests');
  }
}
