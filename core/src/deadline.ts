import { setMaxListeners } from 'node:events';

/** What a piece of work watches to stop in time: a deadline, seen from inside the work. */
export interface Cancellation {
  /** Whether the time ran out or the parent aborted. */
  readonly aborted: boolean;
  /** Why: the timeout's reason or the parent's. */
  readonly reason: unknown;
  /** Calls `listener` once when the deadline passes or the parent aborts (at once if it already has); returns what stops listening. */
  onAbort(listener: (reason: unknown) => void): () => void;
  /** The same as an AbortSignal, for APIs that take one (fetch, timers), made on first use. */
  readonly signal: AbortSignal;
}

export interface Deadline extends Cancellation {
  /** Clears the timer and lets go of the parent: call it as soon as the work is done. */
  clear(): void;
}

/** Parents already told to allow any number of listeners (once each is enough). */
const unlimitedParents = new WeakSet<AbortSignal>();

/**
 * A timeout that is let go of as soon as the work ends. `AbortSignal.timeout` keeps its timer, and
 * through it everything listening (a fetch's request and response), alive for the whole timeout;
 * `AbortSignal.any` adds a dependant to a long-lived parent on every call. At a thousand calls a
 * second with a 15 s timeout, that kept about 15,000 finished requests alive at any time. Its
 * AbortSignal is made only when asked for: the engine client's HTTP calls listen with `onAbort`, as
 * Node 20 promotes every AbortSignal to the old generation (with what listens to it), a thousand a
 * second in a clean (issue 22).
 */
export function deadline(ms: number, parent?: AbortSignal, reason: () => Error = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError')): Deadline {
  let controller: AbortController | undefined;
  let listeners: ((reason: unknown) => void)[] = [];
  let aborted = false;
  let abortReason: unknown;
  const abort = (why: unknown) => {
    if (aborted) return;
    aborted = true;
    abortReason = why;
    controller?.abort(why);
    const waiting = listeners;
    listeners = [];
    for (const listener of waiting) listener(why);
  };
  const timer = setTimeout(() => abort(reason()), ms);
  const onParentAbort = () => abort(parent?.reason);
  if (parent?.aborted) abort(parent.reason);
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
    get aborted() {
      return aborted;
    },
    get reason() {
      return abortReason;
    },
    onAbort(listener) {
      if (aborted) {
        listener(abortReason);
        return () => undefined;
      }
      listeners.push(listener);
      return () => {
        listeners = listeners.filter((l) => l !== listener);
      };
    },
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (aborted) controller.abort(abortReason);
      }
      return controller.signal;
    },
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
