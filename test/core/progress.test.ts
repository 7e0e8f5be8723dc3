import { RateTracker, averageEtaMs, durationWords, progressFigure, progressWords } from '@verify-hub/core';

describe('progressFigure', () => {
  it('against a total known up front: a percentage, capped at 99 until the run is finished', () => {
    expect(progressFigure({ done: 0, seen: 0, expectedTotal: 5000, finished: false })).toEqual({ done: 0, total: 5000, percent: 0 });
    expect(progressFigure({ done: 2100, seen: 2500, expectedTotal: 5000, finished: false })).toEqual({ done: 2100, total: 5000, percent: 42 });
    // Every row through but not yet marked completed (files written, run closing): 99, never 100.
    expect(progressFigure({ done: 5000, seen: 5000, expectedTotal: 5000, finished: false }).percent).toBe(99);
    expect(progressFigure({ done: 5000, seen: 5000, expectedTotal: 5000, finished: true })).toEqual({ done: 5000, total: 5000, percent: 100 });
  });

  it('a source that grew past its estimate raises the total instead of passing 100', () => {
    expect(progressFigure({ done: 90, seen: 120, expectedTotal: 100, finished: false })).toEqual({ done: 90, total: 120, percent: 75 });
  });

  it('without a total: no percentage, the count so far', () => {
    const figure = progressFigure({ done: 9935, seen: 9935, finished: false });
    expect(figure).toEqual({ done: 9935 });
    expect(progressWords(figure)).toBe('9,935 so far');
    expect(progressWords(progressFigure({ done: 2100, seen: 2100, expectedTotal: 45000, finished: false }))).toBe('2,100 of 45,000 (4 %)');
  });
});

describe('RateTracker', () => {
  it('has no rate, so no ETA, from one reading', () => {
    const t = new RateTracker();
    t.observe(10, 0);
    expect(t.perSecond()).toBeUndefined();
    expect(t.etaMs(100)).toBeUndefined();
  });

  it('follows a steady rate and gives the ETA for what is left', () => {
    const t = new RateTracker();
    for (let s = 0; s <= 30; s++) t.observe(s * 50, s * 1000); // 50 a second
    expect(t.perSecond()).toBeCloseTo(50, 5);
    expect(t.etaMs(1000)).toBeCloseTo(20_000, 0);
    expect(t.etaMs(0)).toBe(0);
  });

  it('weights the last minute: after a slowdown the rate moves most of the way within a minute', () => {
    const t = new RateTracker();
    let done = 0;
    for (let s = 1; s <= 120; s++) t.observe((done += 100), s * 1000); // 100/s for two minutes
    for (let s = 121; s <= 180; s++) t.observe((done += 10), s * 1000); // then 10/s for one minute
    const rate = t.perSecond()!;
    expect(rate).toBeLessThan(10 + 0.4 * 90); // e^-1 of the old rate's excess at most
    expect(rate).toBeGreaterThan(10);
  });

  it('never goes back: a lower reading keeps the highest done', () => {
    const t = new RateTracker();
    expect(t.observe(100, 0)).toBe(100);
    expect(t.observe(80, 1000)).toBe(100);
    expect(t.observe(150, 2000)).toBe(150);
  });

  it('the wait for the first answer is not a rate, and readings between steps do not skew the first minute', () => {
    const t = new RateTracker();
    // Read every 20 ms (a dashboard poll, a test); nothing moves for 2 s, then 200 a second arriving in
    // steps of 50 every 250 ms (the way a run's figure is noted).
    for (let at = 0; at < 2_000; at += 20) t.observe(0, at);
    for (let at = 2_000; at <= 5_000; at += 20) t.observe(Math.floor((at - 2_000) / 250) * 50, at);
    expect(t.perSecond()).toBeGreaterThan(150);
    expect(t.perSecond()).toBeLessThan(250);
  });

  it('a stalled run has no ETA rather than a wrong one', () => {
    const t = new RateTracker();
    t.observe(100, 0);
    t.observe(100, 1000);
    expect(t.etaMs(50)).toBeUndefined();
  });
});

describe('averageEtaMs and durationWords', () => {
  it('a single reading estimates from the average rate since the start', () => {
    const started = new Date(0).toISOString();
    expect(averageEtaMs(1000, 5000, started, 60_000)).toBe(240_000);
    expect(averageEtaMs(0, 5000, started, 60_000)).toBeUndefined();
    expect(averageEtaMs(10, undefined, started, 60_000)).toBeUndefined();
  });

  it('says durations in words', () => {
    expect(durationWords(45_000)).toBe('45 s');
    expect(durationWords(180_000)).toBe('3 min');
    expect(durationWords(80 * 60_000)).toBe('1 h 20 min');
  });
});
