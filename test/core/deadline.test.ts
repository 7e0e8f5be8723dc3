import { deadline } from '@verify-hub/core';

describe('deadline', () => {
  it('aborts with a timeout reason once the time has passed', async () => {
    const limit = deadline(20);
    await new Promise((r) => setTimeout(r, 60));
    expect(limit.signal.aborted).toBe(true);
    expect((limit.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('once cleared, never aborts and lets go of its parent', async () => {
    const parent = new AbortController();
    const limit = deadline(20, parent.signal);
    limit.clear();
    await new Promise((r) => setTimeout(r, 60));
    parent.abort(new Error('caller gave up'));
    expect(limit.signal.aborted).toBe(false);
  });

  it('aborts with the parent and its reason, at once when the parent already aborted', () => {
    const parent = new AbortController();
    const limit = deadline(10_000, parent.signal);
    const reason = new Error('caller gave up');
    parent.abort(reason);
    expect(limit.signal.reason).toBe(reason);
    limit.clear();
    const late = deadline(10_000, parent.signal);
    expect(late.signal.reason).toBe(reason);
    late.clear();
  });

  it('uses the reason it is given for its own timeout', async () => {
    const limit = deadline(5, undefined, () => new Error('budget spent'));
    await new Promise((r) => setTimeout(r, 40));
    expect((limit.signal.reason as Error).message).toBe('budget spent');
  });

  it('tells onAbort listeners once, with the reason; one that stopped listening is not told', async () => {
    const limit = deadline(20);
    const heard: unknown[] = [];
    limit.onAbort((reason) => heard.push(reason));
    const stop = limit.onAbort(() => heard.push('stopped listener'));
    stop();
    expect(limit.aborted).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(limit.aborted).toBe(true);
    expect(heard).toHaveLength(1);
    expect((heard[0] as DOMException).name).toBe('TimeoutError');
    expect(limit.reason).toBe(heard[0]);
    // A listener that comes late is told at once.
    limit.onAbort((reason) => heard.push(reason));
    expect(heard).toEqual([heard[0], heard[0]]);
  });

  it('makes its AbortSignal on first use, aborted already when the deadline passed before', async () => {
    const parent = new AbortController();
    const limit = deadline(10_000, parent.signal);
    const reason = new Error('caller gave up');
    parent.abort(reason);
    expect(limit.aborted).toBe(true);
    expect(limit.signal.aborted).toBe(true);
    expect(limit.signal.reason).toBe(reason);
    limit.clear();
    const fresh = deadline(10_000);
    const signal = fresh.signal;
    expect(signal.aborted).toBe(false);
    expect(fresh.signal).toBe(signal);
    fresh.clear();
  });
});
