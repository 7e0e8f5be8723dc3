import { setMaxListeners } from 'node:events';

export interface Deadline {
  /** Aborts after the time, or when the parent signal aborts (with its reason). */
  signal: AbortSignal;
  /** Clears the timer and lets go of the parent: call it as soon as the work is done. */
  clear(): void;
}

/** Parents already told to allow any number of listeners (once each is enough). */
const unlimitedParents = new WeakSet<AbortSignal>();

/**
 * A timeout signal that is let go of as soon as the work ends. `AbortSignal.timeout` keeps its timer,
 * and through it everything listening (a fetch's request and response), alive for the whole timeout;
 * `AbortSignal.any` adds a dependant to a long-lived parent on every call. At a thousand calls a
 * second with a 15 s timeout, that kept about 15,000 finished requests alive at any time.
 */
export function deadline(ms: number, parent?: AbortSignal, reason: () => Error = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError')): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else if (parent) {
    // One parent (a worker's stop signal) is shared by every call in flight, and each listener is
    // removed when its call ends: more than Node's default of 10 at once is expected, not a leak.
    if (!unlimitedParents.has(parent)) {
      setMaxListeners(0, parent);
      unlimitedParents.add(parent);
    }
    parent.addEventListener('abort', onParentAbort, { once: true });
  }
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
