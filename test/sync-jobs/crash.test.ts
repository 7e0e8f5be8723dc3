import { runCrashScenario } from './crash-harness';

/** Verifications a worker process has in flight at most: chunks at once x verifications per chunk (crash-worker.ts). */
const IN_FLIGHT_PER_WORKER = 2 * 5;

/**
 * Issue 16's acceptance, CI-sized: 5,000 HubSpot contacts, 2 worker processes, 5 `kill -9` at
 * random points of the run plus restarts. The run must finish by itself with every contact written
 * exactly once, and no result it stored bought again.
 *
 * What a `kill -9` can still cost: the requests its worker had in flight, which the engine still
 * answers and bills with nobody left to store the answers. The engine has no idempotency key
 * (ENGINE-API.md), so no client can keep those; the test reads the run's purchase ledger to prove every extra purchase is of that kind (no
 * address was stored twice), bounded by what the killed workers had in flight, and that the run's
 * credits are exactly the purchases it stored. Before issue 16 a killed chunk bought again everything
 * it had verified (results were stored at its end), and stalled chunks left the run `running` forever.
 */
describe('crash: worker processes killed mid-run', () => {
  it('5,000 contacts, 2 workers, 5 kill -9 + restarts: completes by itself, each contact written once, no stored result bought again', async () => {
    const lines: string[] = [];
    const f = await runCrashScenario({ contacts: 5000, kills: 5, workers: 2, engineLatencyMs: 10, timeoutMs: 100_000, log: (l) => lines.push(l) });
    const summary = JSON.stringify({ ...f, log: lines.slice(-20) });
    expect({ status: f.status, kills: f.kills, summary }).toEqual({ status: 'completed', kills: 5, summary });
    expect({ lost: f.lost, duplicates: f.duplicates, writtenOnce: f.writtenOnce }).toEqual({ lost: 0, duplicates: 0, writtenOnce: 5000 });
    expect(f.counters).toMatchObject({ pulled: 5000, failed: 0 });
    expect((f.counters.written ?? 0) + (f.counters.unchanged ?? 0)).toBe(5000);
    // every billable address bought, each stored once; the run's credits are what it stored
    expect(f.engineCalls - f.boughtTwice).toBe(f.uniqueBillable);
    expect({ storedTwice: f.storedTwice, storedPurchases: f.storedPurchases, summary }).toEqual({ storedTwice: 0, storedPurchases: f.uniqueBillable, summary });
    expect(f.credits).toBe(f.storedPurchases);
    // what the engine billed beyond that: answers in flight when a worker died, no more
    expect(f.bill - f.credits).toBe(f.boughtTwice);
    expect(f.boughtTwice).toBeLessThanOrEqual(f.kills * IN_FLIGHT_PER_WORKER);
  }, 115_000);
});
