import { RateTracker, durationWords, progressFigure } from '@verify-hub/core';

export interface Progress {
  /** `done` never goes back on screen; `total` 0 or absent means unknown ("n so far", no percentage). */
  update(done: number, extra?: string, total?: number): void;
  /** Prints a line above the bar (the DNS note) and goes on drawing the bar below it. */
  note(text: string): void;
  /** Draws the last line (100 % when `finished`) and ends it with a newline. */
  stop(finished?: boolean): void;
}

const WIDTH = 24;

/**
 * A progress line on stderr when it is a terminal (stdout stays clean for pipes); nothing otherwise.
 * Drawn here rather than by a library so a note can be printed above it without stopping it, the
 * percentage never reaches 100 before the end, and the ETA follows the recent rate.
 */
export function createProgress(label: string, total: number | undefined, enabled = true, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || !stream.isTTY) return { update: () => undefined, note: (text) => console.error(text), stop: () => undefined };
  const rate = new RateTracker();
  let state = { done: 0, total, extra: '' };
  let drawnAt = 0;
  let stopped = false;

  const line = (finished: boolean): string => {
    const figure = progressFigure({ done: state.done, seen: state.done, expectedTotal: state.total || undefined, finished });
    const parts = [label];
    if (figure.percent !== undefined && figure.total !== undefined) {
      const filled = Math.round((figure.percent / 100) * WIDTH);
      parts.push(`${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${String(figure.percent).padStart(3)} %`, `${figure.done.toLocaleString('en-US')}/${figure.total.toLocaleString('en-US')}`);
      const eta = finished ? undefined : rate.etaMs(figure.total - figure.done);
      if (eta !== undefined) parts.push(`about ${durationWords(eta)} left`);
    } else parts.push(`${figure.done.toLocaleString('en-US')} so far`);
    if (state.extra) parts.push(state.extra);
    return parts.join(' | ');
  };
  const draw = (finished = false) => void stream.write(`\r${line(finished)}\x1b[K`);

  return {
    update(done, extra = state.extra, newTotal) {
      if (stopped) return;
      state = { done: rate.observe(done), total: newTotal ?? state.total, extra };
      const now = Date.now();
      if (now - drawnAt < 100) return;
      drawnAt = now;
      draw();
    },
    note(text) {
      stream.write(`\r\x1b[K${text}\n`);
      if (!stopped) draw();
    },
    stop(finished = false) {
      if (stopped) return;
      stopped = true;
      draw(finished);
      stream.write('\n');
    },
  };
}
