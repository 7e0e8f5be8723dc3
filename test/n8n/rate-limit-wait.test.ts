import { EngineQuotaError, EngineRateLimitError, unknownVerification, type Verifier } from '@verify-hub/core';
import { RateLimitWaiter, type Clock } from 'n8n-nodes-verify-hub';

/** Time stands still; sleeps are recorded, not waited. */
function stillClock(now = 1_000_000): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: () => now, sleep: async (ms) => void sleeps.push(ms) };
}

/** Answers each address with the scripted errors first, then a result. */
function scripted(errors: Record<string, Error[]>): Verifier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    verify: async (email) => {
      calls.push(email);
      const next = errors[email]?.shift();
      if (next) throw next;
      return unknownVerification(email, email, 'test');
    },
  };
}

const rate = (resetAt: number) => new EngineRateLimitError('rate limited', { resetAt }, { status: 429 });

describe('RateLimitWaiter', () => {
  test('concurrent callers hit by the same reset wait behind one gate, counted once', async () => {
    const clock = stillClock();
    const inner = scripted({ 'a@x.test': [rate(clock.now() + 5_000)], 'b@x.test': [rate(clock.now() + 5_000)] });
    const waiter = new RateLimitWaiter(inner, 60_000, clock);
    const results = await Promise.all([waiter.verify('a@x.test'), waiter.verify('b@x.test')]);
    expect(results.map((r) => r.email)).toEqual(['a@x.test', 'b@x.test']);
    expect(inner.calls.sort()).toEqual(['a@x.test', 'a@x.test', 'b@x.test', 'b@x.test']);
    expect(waiter.totalWaitedMs).toBe(5_000);
    expect(clock.sleeps).toEqual([5_000, 5_000]);
  });

  test('a reset already past still waits a little, so a retry loop cannot spin', async () => {
    const clock = stillClock();
    const inner = scripted({ 'c@x.test': [rate(clock.now() - 10_000), rate(clock.now() - 10_000)] });
    const waiter = new RateLimitWaiter(inner, 60_000, clock);
    await waiter.verify('c@x.test');
    expect(inner.calls).toHaveLength(3);
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(1);
    expect(clock.sleeps.every((ms) => ms >= 500)).toBe(true);
  });

  test('past the budget the rate-limit error goes on, with a reset still in the future', async () => {
    const clock = stillClock();
    const inner = scripted({ 'd@x.test': [rate(clock.now() + 40_000), rate(clock.now() + 90_000)] });
    const waiter = new RateLimitWaiter(inner, 60_000, clock);
    const error = (await waiter.verify('d@x.test').catch((e: unknown) => e)) as EngineRateLimitError;
    expect(error).toBeInstanceOf(EngineRateLimitError);
    expect(error.resetAt).toBeGreaterThan(clock.now());
    expect(error.message).toMatch(/waited 40 s in total/);
    expect(inner.calls).toHaveLength(2);
  });

  test('quota and other errors pass through at once, without waiting', async () => {
    const clock = stillClock();
    const quota = new EngineQuotaError('quota', { resetAt: clock.now() + 1e9 }, { status: 429 });
    const inner = scripted({ 'e@x.test': [quota], 'f@x.test': [new Error('boom')] });
    const waiter = new RateLimitWaiter(inner, 60_000, clock);
    await expect(waiter.verify('e@x.test')).rejects.toBe(quota);
    await expect(waiter.verify('f@x.test')).rejects.toThrow('boom');
    expect(clock.sleeps).toEqual([]);
  });
});
