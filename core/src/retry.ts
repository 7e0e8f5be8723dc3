import { EngineUnavailableError, VerifyHubError } from './errors';

/** The one retry policy of the engine client: which failures are worth another attempt. */
export function shouldRetry(error: unknown): boolean {
  if (error instanceof EngineUnavailableError) return true;
  if (error instanceof VerifyHubError) return false;
  // Anything else thrown by fetch (DNS, reset, abort by our own timeout) is network trouble.
  return true;
}

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Injectable for tests; defaults to Math.random. */
  random?: () => number;
}

/** Exponential backoff with full jitter: uniform in [0, min(max, base * 2^attempt)]. `attempt` starts at 0. */
export function backoffDelay(attempt: number, { baseMs, maxMs, random = Math.random }: BackoffOptions): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(random() * ceiling);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
