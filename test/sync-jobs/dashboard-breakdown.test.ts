import { randomUUID } from 'node:crypto';
import { emptyLedger, InputError, LEDGER_CATEGORIES, type ContactResult, type WriteOptions, type WriteReport } from '@verify-hub/core';
import { FAILURES_KEPT, Keys, RunStore, createRedis, priorReason, rowCategory, type ReportRow, type RunBreakdown, type SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeSource } from '../fakes/source';
import { setup, waitFor, waitForStatus } from './helpers';

/** A platform that refuses to store every `failEvery`-th contact (not retryable). */
class RefusingSource extends FakeSource {
  constructor(size: number, private readonly failEvery: number) {
    super({ size, pageSize: 100, invalidEvery: 7, riskyEvery: 11 });
  }
  override async write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
    const refused = results.filter((r) => Number(r.contact.id.slice(1)) % this.failEvery === 0);
    const report = await super.write(results.filter((r) => !refused.includes(r)), opts);
    report.failed.push(...refused.map((r) => ({ contactId: r.contact.id, email: r.contact.email, reason: 'the platform refused the value', retryable: false })));
    return report;
  }
}

/** What the report rows say: each contact's latest result (a re-check row replaces the run's), and the run's failed rows. */
async function fromReport(pipeline: SyncPipeline, runId: string): Promise<{ breakdown: Omit<RunBreakdown, 'failures'>; failed: ReportRow[] }> {
  const latest = new Map<string, ReportRow>();
  const failed: ReportRow[] = [];
  for await (const row of pipeline.report(runId)) {
    latest.set(row.contactId, row);
    if (row.outcome === 'failed') failed.push(row);
  }
  const ledger = emptyLedger();
  const reasons = new Map<string, number>();
  const unknownReasons: Record<string, number> = {};
  for (const row of latest.values()) {
    ledger[rowCategory(row)]++;
    if (rowCategory(row) === 'unknown' && row.reason) unknownReasons[row.reason] = (unknownReasons[row.reason] ?? 0) + 1;
    if (row.reason) reasons.set(row.reason, (reasons.get(row.reason) ?? 0) + 1);
  }
  ledger.total = LEDGER_CATEGORIES.reduce((sum, c) => sum + ledger[c], 0);
  // The risk counts are the ledger's: a failed write is "failed to write", not its result's risk.
  const risk = { safe: ledger.safe, risky: ledger.risky, invalid: ledger.invalid, unknown: ledger.unknown };
  const sorted = [...reasons].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  return { breakdown: { risk, ledger, unknownReasons, reasons: sorted, failuresTotal: failed.length }, failed };
}

describe('a run breakdown', () => {
  it('counts by risk and reason and lists the first failures, as the report rows say', async () => {
    const source = new RefusingSource(1_500, 10);
    const t = await setup({ size: 1 });
    t.registry.register('refusing', () => source);
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'refusing', scope: 'all' });
      const done = await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused']);
      expect(done.status).toBe('completed');
      expect(done.counters.failed).toBe(150);

      const breakdown = await t.pipeline.breakdown(run.id);
      const expected = await fromReport(t.pipeline, run.id);
      expect(breakdown).toMatchObject(expected.breakdown);
      // Invalid every 7th, then risky every 11th; the 150 rows the platform refused are "failed to write" in the ledger, not their risk.
      const risk = breakdown.risk as Record<string, number>;
      expect(risk.safe! + risk.risky! + risk.invalid! + risk.unknown!).toBe(1_500 - 150);
      expect(breakdown.ledger).toMatchObject({ write_failed: 150, not_checked: 0, unreadable: 0, total: 1_500 });
      expect(breakdown.reasons.reduce((n, r) => n + r.count, 0)).toBe(1_500);
      expect(breakdown.failuresTotal).toBe(150);
      expect(breakdown.failures).toHaveLength(FAILURES_KEPT);
      const failedById = new Map(expected.failed.map((r) => [r.contactId, r]));
      for (const f of breakdown.failures) expect(f).toEqual({ contactId: f.contactId, email: failedById.get(f.contactId)!.email, error: 'the platform refused the value' });
      expect(new Set(breakdown.failures.map((f) => f.contactId)).size).toBe(FAILURES_KEPT);
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('moves a contact out of unknown when a re-check knows better', async () => {
    const t = await setup({ size: 30, pageSize: 10, emailOf: (i) => `later.${i}@example.com` }, {}, { recheckDelaysMs: [50, 100] });
    t.engine.script('later.3@example.com', { kind: 'result', risk: 'unknown', reason: 'greylisted' }, { kind: 'result', risk: 'unknown', reason: 'timeout' }, { kind: 'result', risk: 'invalid', reason: 'mailbox_not_found' });
    t.engine.script('later.4@example.com', { kind: 'result', risk: 'unknown', reason: 'greylisted' }, { kind: 'result', risk: 'safe' });
    t.engine.script('later.5@example.com', { kind: 'result', risk: 'unknown', reason: 'greylisted' });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitForStatus(t.pipeline, run.id, ['completed']);
      await waitFor(async () => {
        const c = await t.pipeline.queues.chunks.getJobCounts('delayed', 'waiting', 'active');
        return c.delayed + c.waiting + c.active === 0 && t.engine.callsFor('later.5@example.com') === 3;
      });
      const breakdown = await t.pipeline.breakdown(run.id);
      expect(breakdown).toMatchObject((await fromReport(t.pipeline, run.id)).breakdown);
      expect(breakdown.risk).toEqual({ safe: 28, risky: 0, invalid: 1, unknown: 1 });
      expect(breakdown.reasons).toEqual(expect.arrayContaining([{ reason: 'mailbox_not_found', count: 1 }, { reason: 'greylisted', count: 1 }]));
      expect(breakdown.reasons.find((r) => r.reason === 'timeout')).toBeUndefined();
      expect(breakdown).toMatchObject({ failures: [], failuresTotal: 0 });
    } finally {
      await workers.close();
      await t.done();
    }
  });

  it('is refused for an unknown run, naming the id', async () => {
    const t = await setup({ size: 1 });
    try {
      const error = await t.pipeline.breakdown('run_nope').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect(error).toMatchObject({ field: 'id' });
    } finally {
      await t.done();
    }
  });
});

describe('the breakdown store', () => {
  it('keeps one ledger: a re-check moves a row from unknown, not checked or failed to write to its new category, never adding one', async () => {
    const redis = createRedis(process.env.REDIS_URL!);
    const keys = new Keys(`vhtest-${randomUUID().slice(0, 8)}`);
    const store = new RunStore(redis, keys);
    try {
      const run = await store.create({ platform: 'fake', scope: 'all' });
      const rows: ReportRow[] = [
        { contactId: 'a', email: 'a@example.com', risk: 'unknown', reason: 'smtp_timeout', outcome: 'written' },
        { contactId: 'b', email: 'b@example.com', risk: 'unknown', reason: 'not_checked', outcome: 'written' },
        { contactId: 'c', email: 'c@example.com', risk: 'unknown', reason: 'greylisted', outcome: 'failed', error: 'refused' },
        { contactId: 'd', email: 'd@example.com', risk: 'safe', reason: 'deliverable', outcome: 'written' },
      ];
      await store.countPage(run.id, 0, { pulled: 4, skipped: 3, unreadable: 1 }, rows);
      const before = await store.breakdown(run.id);
      // 3 skipped by the source, 1 of them unreadable: 2 not checked (no address) and 1 could not be read.
      expect(before.ledger).toEqual({ safe: 1, risky: 0, invalid: 0, unknown: 1, not_checked: 3, unreadable: 1, write_failed: 1, total: 7 });
      const carried = Object.fromEntries(rows.filter((r) => r.risk === 'unknown').map((r) => [r.contactId, priorReason(r)!]));
      expect(carried.c).toBe('failed:greylisted');
      await store.appendReport(
        run.id,
        [
          { contactId: 'a', email: 'a@example.com', risk: 'safe', reason: 'deliverable', outcome: 'recheck_written' },
          { contactId: 'b', email: 'b@example.com', risk: 'invalid', reason: 'mailbox_not_found', outcome: 'recheck_written' },
          { contactId: 'c', email: 'c@example.com', risk: 'risky', reason: 'catch_all', outcome: 'recheck_written' },
        ],
        carried,
      );
      const after = await store.breakdown(run.id);
      expect(after.ledger).toEqual({ safe: 2, risky: 1, invalid: 1, unknown: 0, not_checked: 2, unreadable: 1, write_failed: 0, total: 7 });
      expect(after.risk).toEqual({ safe: 2, risky: 1, invalid: 1, unknown: 0 });
      expect([before.unknownReasons, after.unknownReasons]).toEqual([{ smtp_timeout: 1 }, {}]);
      expect(after.reasons.find((r) => ['smtp_timeout', 'not_checked', 'greylisted'].includes(r.reason))).toBeUndefined();
    } finally {
      const found = await redis.keys(`${keys.prefix}:*`);
      if (found.length) await redis.del(...found);
      await redis.quit();
    }
  });

  it('keeps 50,000 rows counted as they come (read without the report), once per page, and its keys go with the run', async () => {
    const redis = createRedis(process.env.REDIS_URL!);
    const keys = new Keys(`vhtest-${randomUUID().slice(0, 8)}`);
    const store = new RunStore(redis, keys);
    try {
      const run = await store.create({ platform: 'fake', scope: 'all' });
      const risks = ['safe', 'risky', 'invalid', 'unknown'] as const;
      for (let page = 0; page < 50; page++) {
        const rows: ReportRow[] = Array.from({ length: 1_000 }, (_, i) => {
          const n = page * 1_000 + i;
          const row: ReportRow = { contactId: `c${n}`, email: `u${n}@example.com`, risk: risks[n % 4], reason: `r${n % 3}`, outcome: n % 500 === 0 ? 'failed' : 'written' };
          if (row.outcome === 'failed') row.error = 'refused';
          return row;
        });
        expect(await store.countPage(run.id, page, { pulled: 1_000 }, rows)).toBe(true);
        if (page === 0) expect(await store.countPage(run.id, page, { pulled: 1_000 }, rows)).toBe(false); // delivered twice: counted once
      }
      await redis.del(keys.report(run.id)); // the breakdown does not read the report
      const started = Date.now();
      const breakdown = await store.breakdown(run.id);
      const elapsed = Date.now() - started;
      // Every 500th row (n % 4 === 0: safe) failed to write: it is counted there, not as safe.
      expect(breakdown.risk).toEqual({ safe: 12_400, risky: 12_500, invalid: 12_500, unknown: 12_500 });
      expect(breakdown.ledger).toEqual({ safe: 12_400, risky: 12_500, invalid: 12_500, unknown: 12_500, not_checked: 0, unreadable: 0, write_failed: 100, total: 50_000 });
      expect(breakdown.reasons).toEqual([
        { reason: 'r0', count: 16_667 },
        { reason: 'r1', count: 16_667 },
        { reason: 'r2', count: 16_666 },
      ]);
      expect(breakdown.failuresTotal).toBe(100);
      expect(breakdown.failures).toHaveLength(100);
      expect(breakdown.failures[0]).toEqual({ contactId: 'c0', email: 'u0@example.com', error: 'refused' });
      expect(elapsed).toBeLessThan(1_000);

      expect(keys.runKeys(run.id)).toEqual(expect.arrayContaining([keys.breakdown(run.id), keys.failures(run.id)]));
      expect(await redis.exists(keys.breakdown(run.id), keys.failures(run.id))).toBe(2);
    } finally {
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${keys.prefix}:*`, 'COUNT', 1000);
        if (found.length) await redis.del(...found);
        cursor = next;
      } while (cursor !== '0');
      await redis.quit();
    }
  });

  it('is deleted with everything else by purge', async () => {
    const t = await setup({ size: 20, pageSize: 10 });
    const workers = t.pipeline.startWorkers();
    try {
      const run = await t.pipeline.start({ platform: 'fake', scope: 'all' });
      await waitForStatus(t.pipeline, run.id, ['completed']);
      expect((await t.pipeline.breakdown(run.id)).risk.safe).toBe(20);
      expect(await t.pipeline.redis.exists(t.pipeline.keys.breakdown(run.id))).toBe(1);
      await workers.close();
      await t.pipeline.purge();
      expect(await t.pipeline.redis.exists(...t.pipeline.keys.runKeys(run.id))).toBe(0);
    } finally {
      await workers.close();
      await t.done();
    }
  });
});
