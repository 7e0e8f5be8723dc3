/**
 * At most `limit` SMTP sessions at a time per mail host, the others wait their turn (first come, first
 * served). Big providers answer "421 too many connections" to a verifier that opens dozens at once, which
 * would turn a whole list into `unknown`. A waiter gives up when its signal aborts.
 */
export class HostLimiter {
  private readonly hosts = new Map<string, { active: number; waiting: (() => void)[] }>();

  constructor(private readonly limit: number) {}

  async run<T>(host: string, signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    await this.acquire(host, signal);
    try {
      return await task();
    } finally {
      this.release(host);
    }
  }

  private acquire(host: string, signal?: AbortSignal): Promise<void> {
    let state = this.hosts.get(host);
    if (!state) this.hosts.set(host, (state = { active: 0, waiting: [] }));
    if (state.active < this.limit) {
      state.active++;
      return Promise.resolve();
    }
    const s = state;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        s.waiting = s.waiting.filter((w) => w !== grant);
        reject(signal?.reason);
      };
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        s.active++;
        resolve();
      };
      if (signal?.aborted) return reject(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      s.waiting.push(grant);
    });
  }

  private release(host: string): void {
    const state = this.hosts.get(host);
    if (!state) return;
    state.active--;
    const next = state.waiting.shift();
    if (next) next();
    else if (state.active === 0) this.hosts.delete(host);
  }
}
