/**
 * Honest progress for a run: a percentage only against a total known up front (a file's row count, a
 * platform's total), never 100 before the run is finished, never going back; an ETA from the recent
 * rate (an exponentially weighted rate with a one-minute time constant). Pure, so the run view, the
 * CLI's bar and `runs show` compute it the same way.
 */

export interface ProgressInput {
  /** Records settled so far (written, unchanged, failed, or skipped by the source). */
  done: number;
  /** Records read from the source so far. */
  seen: number;
  /** The total known before the run started (a file's rows, a platform's count), if any. */
  expectedTotal?: number;
  finished: boolean;
}

export interface ProgressFigure {
  done: number;
  /** The denominator: the expected total when known (never below what was seen), else undefined. */
  total?: number;
  /** 0..100 against a known total; 100 only when finished; undefined when no total is known ("n so far"). */
  percent?: number;
}

export function progressFigure(input: ProgressInput): ProgressFigure {
  const done = Math.max(0, input.done);
  if (input.finished) return { done, total: input.expectedTotal === undefined ? done : Math.max(done, input.expectedTotal), percent: 100 };
  if (input.expectedTotal === undefined || input.expectedTotal <= 0) return { done };
  const total = Math.max(input.expectedTotal, input.seen, done);
  return { done, total, percent: Math.min(99, Math.floor((done / total) * 100)) };
}

/** Words for a figure: "1,234 of 5,000 (24 %)", or "1,234 so far" when no total is known. */
export function progressWords(figure: ProgressFigure): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (figure.percent === undefined || figure.total === undefined) return `${n(figure.done)} so far`;
  return `${n(figure.done)} of ${n(figure.total)} (${figure.percent} %)`;
}

/** "45 s", "3 min", "1 h 20 min". */
export function durationWords(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/**
 * The recent rate of a run from readings of its `done` count: each new reading blends the rate since
 * the previous one with weight 1 - e^(-dt/τ) (τ = one minute), so the rate follows the last minute
 * and a pause shows at once; during the first minute after the records began to move, the average
 * since then. Readings never go back (a lower `done` is ignored).
 */
export class RateTracker {
  private last?: { at: number; done: number };
  /** The last reading before `done` first grew: where the rate is measured from (the wait for a first answer is no rate). */
  private movedFrom?: { at: number; done: number };
  private rate?: number;
  private maxDone = 0;

  constructor(private readonly timeConstantMs = 60_000) {}

  /** Records a reading; returns the monotonic `done` (never below an earlier reading). */
  observe(done: number, at = Date.now()): number {
    this.maxDone = Math.max(this.maxDone, done);
    const reading = { at, done: this.maxDone };
    if (!this.movedFrom && this.last && reading.done > this.last.done) this.movedFrom = this.last;
    if (this.movedFrom && this.last && at > this.last.at) {
      const dt = at - this.last.at;
      const instant = (reading.done - this.last.done) / dt;
      const weight = 1 - Math.exp(-dt / this.timeConstantMs);
      // For the first time constant, the average since the records began to move (a first interval of a
      // few ms, or one reading taken just as a page landed, would seed a rate far off for a whole minute);
      // after that, each interval blends in by how much time it covers.
      const sinceMoved = at - this.movedFrom.at;
      this.rate = sinceMoved < this.timeConstantMs || this.rate === undefined ? (reading.done - this.movedFrom.done) / sinceMoved : this.rate + weight * (instant - this.rate);
    }
    if (!this.last || at >= this.last.at) this.last = reading;
    return this.maxDone;
  }

  /** Records per second, or undefined before two readings apart in time. */
  perSecond(): number | undefined {
    return this.rate === undefined ? undefined : this.rate * 1000;
  }

  /** Milliseconds left for `remaining` records at the recent rate; undefined when no rate is known yet or nothing moves. */
  etaMs(remaining: number): number | undefined {
    if (remaining <= 0) return 0;
    if (this.rate === undefined || this.rate <= 0) return undefined;
    return remaining / this.rate;
  }
}

/** ETA from the average rate since the run started: for a single reading (`runs show`), where no recent rate exists. */
export function averageEtaMs(done: number, total: number | undefined, startedAt: string | undefined, now = Date.now()): number | undefined {
  if (total === undefined || !startedAt) return undefined;
  const elapsed = now - Date.parse(startedAt);
  if (!(elapsed > 0) || done <= 0) return undefined;
  return Math.max(0, total - done) * (elapsed / done);
}
