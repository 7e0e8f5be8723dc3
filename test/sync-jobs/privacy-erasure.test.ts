import { randomBytes } from 'node:crypto';
import { createLogger } from '@verify-hub/core';
import { everythingMatching } from '../setup/redis-contents';
import type { ReportRow, SyncPipeline } from '@verify-hub/sync-jobs';
import { setup, waitFor, waitForStatus } from './helpers';

async function reportOf(pipeline: SyncPipeline, runId: string): Promise<ReportRow[]> {
  const rows: ReportRow[] = [];
  for await (const row of pipeline.report(runId)) rows.push(row);
  return rows;
}

describe('a privacy deletion erases the contact from everything the hub keeps', () => {
  it('cache, report rows (as tombstones that keep the totals), purchases, queued events and re-checks; idempotent', async () => {
    // 300 contacts, every 10th unknown: their re-checks wait 30 minutes in the chunks queue.
    const logLines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });
    const t = await setup({ size: 300, pageSize: 100, unknownEvery: 10 }, {}, { secretKey: randomBytes(32).toString('base64'), eventCoalesceMs: 600_000, logger });
    const workers = t.pipeline.startWorkers();
    try {
      await t.pipeline.connections!.save({ id: 'conn1', platform: 'fake', label: 'Fake', createdAt: new Date().toISOString(), credentials: {} });
      const run = await t.pipeline.start({ platform: 'fake', connectionId: 'conn1', scope: 'all' });
      expect((await waitForStatus(t.pipeline, run.id, ['completed', 'failed', 'paused'])).status).toBe('completed');
      await waitFor(async () => (await t.pipeline.queues.chunks.getJobs(['delayed'])).filter((j) => j.name === 'recheck').length === 3);
      const unknownAddress = t.source.emailOf(9); // c9: unknown, waiting in a re-check job
      const safeAddress = t.source.emailOf(0); // c0: a final result, in the cache
      expect(unknownAddress).toBe('unknown.9@example.com');
      const queued = await t.pipeline.enqueueEvent({ platform: 'fake', kind: 'email_changed', connectionId: 'conn1', accountId: 'a', contactId: 'c0', email: safeAddress, occurredAt: Date.now(), dedupeKey: 'k1' });
      expect(queued.queued).toBe(true);
      const before = { breakdown: await t.pipeline.breakdown(run.id), rows: (await reportOf(t.pipeline, run.id)).length, run: (await t.pipeline.get(run.id))!.counters };
      const holds = (texts: string[], address: string, id: string) => texts.filter((text) => text.toLowerCase().includes(address) || text.includes(`"id":"${id}"`) || text.includes(`"contactId":"${id}"`));
      const everything = await everythingMatching(t.pipeline.redis, `${t.pipeline.keys.prefix}:*`);
      expect(holds(everything, unknownAddress, 'c9').length).toBeGreaterThan(0);
      expect(holds(everything, safeAddress, 'c0').length).toBeGreaterThan(0);

      // HubSpot's form: the contact id only. Mailchimp's: the address (its contact id is another id).
      const byId = await t.pipeline.enqueueEvent({ platform: 'fake', kind: 'privacy_deletion', connectionId: 'conn1', accountId: 'a', contactId: 'c9', occurredAt: Date.now(), dedupeKey: 'k2' });
      // Two jobs held c9: its page's chunk job (completed, kept for an hour) and its re-check.
      expect(byId).toEqual({ queued: false, erased: { cacheEntries: 0, reportRows: 1, failureRows: 0, purchases: 0, eventJobs: 0, contactsInJobs: 2, bounceEntries: 0 } });
      const byAddress = await t.pipeline.enqueueEvent({ platform: 'fake', kind: 'privacy_deletion', connectionId: 'conn1', accountId: 'a', contactId: 'hash-of-c0', email: safeAddress.toUpperCase(), occurredAt: Date.now(), dedupeKey: 'k3' });
      expect(byAddress.erased).toMatchObject({ cacheEntries: 1, reportRows: 1, purchases: 1, eventJobs: 1 });

      const after = await everythingMatching(t.pipeline.redis, `${t.pipeline.keys.prefix}:*`);
      expect(holds(after, unknownAddress, 'c9')).toEqual([]);
      expect(holds(after, safeAddress, 'c0')).toEqual([]);
      // Totals unchanged: the rows are tombstones.
      const rows = await reportOf(t.pipeline, run.id);
      expect(rows).toHaveLength(before.rows);
      expect(rows.filter((r) => r.erased)).toEqual([
        expect.objectContaining({ contactId: '', email: '', risk: 'safe', erased: true }),
        expect.objectContaining({ contactId: '', email: '', risk: 'unknown', erased: true }),
      ]);
      expect(await t.pipeline.breakdown(run.id)).toEqual(before.breakdown);
      expect((await t.pipeline.get(run.id))!.counters).toEqual(before.run);
      // The other contacts of the re-check job are still there.
      const rechecks = (await t.pipeline.queues.chunks.getJobs(['delayed'])).filter((j) => j.name === 'recheck');
      expect(rechecks.map((j) => j.data.contacts.length).sort()).toEqual([10, 10, 9]);

      // Its log lines say what was erased, in counts: never the address or the contact id.
      const erasureLines = logLines.filter((line) => line.includes('erased for privacy'));
      expect(erasureLines).toHaveLength(2);
      expect(erasureLines.join('\n')).toContain('"reportRows":1');
      expect(holds(erasureLines, unknownAddress, 'c9')).toEqual([]);
      expect(holds(erasureLines, safeAddress, 'c0')).toEqual([]);
      expect(erasureLines.join('\n')).not.toMatch(/"c9"|"c0"|hash-of-c0/);

      // A second delivery finds nothing left.
      const again = await t.pipeline.eraseContact({ connectionId: 'conn1', contactId: 'c9', email: unknownAddress });
      expect(Object.values(again).every((n) => n === 0)).toBe(true);
    } finally {
      await workers.close();
      await t.done();
    }
  });
});
