import { DEFAULT_VERIFICATION_FIELD_NAMES as EV } from '@verify-hub/core';
import { IMPORT_JOB_MAX_BYTES, IMPORT_JOB_MAX_PROFILES, importJobs, klaviyoProperties, planWrites } from '@verify-hub/connector-klaviyo';
import { riskyCatchAll } from '../fakes/verification/risky-catch-all';

/** What a batch needs written: only changed properties, jobs within Klaviyo's limits, suppression only when chosen. */
describe('Klaviyo write plan', () => {
  const contact = (id: string, current: Record<string, unknown> = {}) => ({ id, email: `${id}@example.com`, current });

  it('sends only the properties that changed; a profile holding them all is unchanged', () => {
    const v = riskyCatchAll();
    const stored = klaviyoProperties(v);
    const plan = planWrites(
      [
        { contact: contact('a', stored), verification: v },
        { contact: contact('b', { ...stored, [EV.score]: 12 }), verification: v },
      ],
      {},
    );
    expect(plan.unchanged).toEqual(['a']);
    expect(plan.updates).toEqual([{ id: 'b', email: 'b@example.com', properties: { [EV.score]: 87 } }]);
    expect(plan.suppress).toEqual([]);
  });

  it('an unknown repeated (same reason, only a new time) is not written; a new unknown is', () => {
    const first = riskyCatchAll({ risk: 'unknown', reason: 'smtp_timeout', score: 0, checkedAt: '2026-11-20T08:30:00.000Z', billable: false });
    const again = riskyCatchAll({ risk: 'unknown', reason: 'smtp_timeout', score: 0, checkedAt: '2026-11-21T09:00:00.000Z', billable: false });
    expect(planWrites([{ contact: contact('u', klaviyoProperties(first)), verification: again }], {}).unchanged).toEqual(['u']);
    const wasSafe = klaviyoProperties(riskyCatchAll({ risk: 'safe', reason: 'deliverable' }));
    expect(planWrites([{ contact: contact('u', wasSafe), verification: again }], {}).updates[0]!.properties).toMatchObject({ [EV.risk]: 'unknown', [EV.checkedAt]: '2026-11-21T09:00:00.000Z' });
  });

  it('plans the suppression of invalid addresses only on the user\'s choice', () => {
    const invalid = riskyCatchAll({ risk: 'invalid', reason: 'mailbox_not_found' });
    expect(planWrites([{ contact: contact('i'), verification: invalid }], {}).suppress).toEqual([]);
    expect(planWrites([{ contact: contact('i'), verification: invalid }], { actions: { invalid: 'archive' } }).suppress).toEqual([]);
    expect(planWrites([{ contact: contact('i'), verification: invalid }], { actions: { invalid: 'unsubscribe' } }).suppress).toEqual([{ contactId: 'i', email: 'i@example.com', action: 'unsubscribe', applied: false }]);
  });

  it('splits updates into jobs of at most 10,000 profiles and 5 MB', () => {
    const small = Array.from({ length: 25_000 }, (_, i) => ({ id: `p${i}`, email: `p${i}@example.com`, properties: { [EV.risk]: 'safe' } }));
    expect(importJobs(small).map((job) => job.length)).toEqual([IMPORT_JOB_MAX_PROFILES, IMPORT_JOB_MAX_PROFILES, 5000]);
    const big = Array.from({ length: 120 }, (_, i) => ({ id: `b${i}`, email: `b${i}@example.com`, properties: { note: 'x'.repeat(90_000) } }));
    const jobs = importJobs(big);
    expect(jobs.length).toBeGreaterThan(1);
    for (const job of jobs) expect(Buffer.byteLength(JSON.stringify(job))).toBeLessThan(IMPORT_JOB_MAX_BYTES);
    expect(jobs.flat()).toHaveLength(120);
  });
});
