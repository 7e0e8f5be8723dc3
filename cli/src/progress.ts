import { SingleBar, Presets } from 'cli-progress';

/**
 * A progress bar on stderr when it is a terminal (stdout stays clean for pipes); nothing otherwise.
 */
export function createProgress(label: string, total: number, enabled = true): { update(done: number, extra?: string, total?: number): void; stop(): void } {
  if (!enabled || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar(
    { format: `${label} {bar} {percentage}% | {value}/{total} | {extra}`, stream: process.stderr, hideCursor: true, clearOnComplete: false, etaBuffer: 50 },
    Presets.shades_classic,
  );
  bar.start(Math.max(1, total), 0, { extra: '' });
  return {
    update(done, extra = '', newTotal) {
      if (newTotal !== undefined) bar.setTotal(Math.max(1, newTotal));
      bar.update(done, { extra });
    },
    stop() {
      bar.stop();
    },
  };
}
