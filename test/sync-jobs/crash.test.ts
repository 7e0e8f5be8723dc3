import { runCrashScenario } from './crash-harness';

/**
 * Issue 16's acceptance, CI-sized: 5,000 HubSpot contacts, 2 worker processes, 5 `kill -9` at
 * random points of the run plus restarts. The run must finish by itself with every contact written
 * exactly once, nothing bought twice, and the run's credits equal to the engine's bill.
 *
 * A `kill -9` leaves the requests its worker had in flight with the engine, which still answers and
 * bills them. Each purchase carries an Idempotency-Key made of the run and the address (a verify-hub
 * extension the local engine and this fake serve), so the replay of the killed chunk collects those
 * answers (counted in `replays`) instead of buying them again. Before issue 16 a killed chunk bought
 * again everything it had verified, and stalled chunks left the run `running` forever.
 */
describe('crash: worker processes killed mid-run', () => {
  it('5,000 contacts, 2 workers, 5 kill -9 + restarts: completes by itself, each contact written once, nothing bought twice, credits = bill', async () => {
    const lines: string[] = [];
    const f = await runCrashScenario({ contacts: 5000, kills: 5, workers: 2, engineLatencyMs: 10, timeoutMs: 100_000, log: (l) => lines.push(l) });
    const summary = JSON.stringify({ ...f, log: lines.slice(-20) });
    expect({ status: f.status, kills: f.kills, summary }).toEqual({ status: 'completed', kills: 5, summary });
    expect({ lost: f.lost, duplicates: f.duplicates, writtenOnce: f.writtenOnce }).toEqual({ lost: 0, duplicates: 0, writtenOnce: 5000 });
    expect(f.counters).toMatchObject({ pulled: 5000, failed: 0 });
    expect((f.counters.written ?? 0) + (f.counters.unchanged ?? 0)).toBe(5000);
    // every billable address bought exactly once, stored once; the run's credits are the engine's bill
    expect({ boughtTwice: f.boughtTwice, storedTwice: f.storedTwice, bill: f.bill, summary }).toEqual({ boughtTwice: 0, storedTwice: 0, bill: f.uniqueBillable, summary });
    expect(f.storedPurchases).toBe(f.uniqueBillable);
    expect(f.credits).toBe(f.bill);
    // the engine was asked once per billable address, plus the replays that collected answers a killed worker left behind
    expect(f.engineCalls).toBeGreaterThanOrEqual(f.uniqueBillable);
  }, 115_000);
});
