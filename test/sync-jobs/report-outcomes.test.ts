import type { ContactResult, WriteOptions, WriteReport } from '@verify-hub/core';
import type { ReportRow } from '@verify-hub/sync-jobs';
import { setup, waitForStatus } from './helpers';

const SIZE = 300;
/** Contacts whose stored value is altered before the second run (so it writes them again). */
const altered = (i: number) => i % 10 === 4;
/** Contacts the platform refuses in the second run. */
const refused = (i: number) => i % 25 === 7;

async function rowsOf(report: AsyncIterable<ReportRow>): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  for await (const row of report) rows.push(row);
  return rows;
}

function tally(rows: ReportRow[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const r of rows) n[r.outcome] = (n[r.outcome] ?? 0) + 1;
  return n;
}

describe('per-record report outcomes', () => {
  it('a chunk where some contacts change and others do not gives each row its own outcome, and the rows add up to the counters', async () => {
    const h = await setup({ size: SIZE, pageSize: 100 });
    let refuse = false;
    // The platform refuses some contacts in the second run; the rest go to the fake source as they are.
    h.registry.register('fake', () =>
      Object.assign(Object.create(h.source) as typeof h.source, {
        async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
          const isRefused = (r: ContactResult) => refuse && refused(Number(r.contact.id.slice(1)));
          const report = await h.source.write(results.filter((r) => !isRefused(r)), opts);
          const failed = results.filter(isRefused).map((r) => ({ contactId: r.contact.id, email: r.contact.email, reason: 'refused by the platform', retryable: false }));
          return { ...report, failed: [...report.failed, ...failed] };
        },
      }),
    );
    const workers = h.pipeline.startWorkers();
    try {
      const first = await h.pipeline.start({ platform: 'fake', scope: 'all' });
      const firstDone = await waitForStatus(h.pipeline, first.id, ['completed', 'failed', 'paused']);
      expect(firstDone.counters).toMatchObject({ pulled: SIZE, written: SIZE, unchanged: 0, failed: 0 });
      expect(tally(await rowsOf(h.pipeline.report(first.id)))).toEqual({ written: SIZE });

      for (let i = 0; i < SIZE; i++) if (altered(i)) h.source.storedFor(`c${i}`)!.ev_score = '1';
      refuse = true;
      const second = await h.pipeline.start({ platform: 'fake', scope: 'all' });
      const done = await waitForStatus(h.pipeline, second.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      const rows = await rowsOf(h.pipeline.report(second.id));
      expect(rows).toHaveLength(SIZE);
      const expected = (i: number) => (refused(i) ? 'failed' : altered(i) ? 'written' : 'unchanged');
      const byId = new Map(rows.map((r) => [r.contactId, r.outcome]));
      const wrong = Array.from({ length: SIZE }, (_, i) => i).filter((i) => byId.get(`c${i}`) !== expected(i));
      expect(wrong).toEqual([]);
      // Every page mixes the three outcomes, and the report adds up to the run's counters.
      const written = Array.from({ length: SIZE }, (_, i) => i).filter((i) => expected(i) === 'written').length;
      const failed = Array.from({ length: SIZE }, (_, i) => i).filter(refused).length;
      expect(done.counters).toMatchObject({ pulled: SIZE, written, unchanged: SIZE - written - failed, failed, credits: 0 });
      expect(tally(rows)).toEqual({ written: done.counters.written, unchanged: done.counters.unchanged, failed: done.counters.failed });
    } finally {
      await workers.close();
      await h.done();
    }
  });
});
