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
  return new TimedDeadline(ms, parent, reason);
}

/**
 * One object per deadline, its methods on the prototype: one is made per engine call, and it lives
 * as long as the call (long enough, on a busy hub, to be promoted), so it is kept small.
 */
class TimedDeadline implements Deadline {
  private ended = false;
  private why: unknown = undefined;
  private controller?: AbortController;
  private listeners?: ((reason: unknown) => void)[];
  private readonly timer: NodeJS.Timeout;
  private readonly onParentAbort?: () => void;

  constructor(ms: number, private readonly parent: AbortSignal | undefined, timeoutReason: () => Error) {
    this.timer = setTimeout(expire, ms, this, timeoutReason);
    if (parent?.aborted) this.abort(parent.reason);
    else if (parent) {
      // One parent (a worker's stop signal) is shared by every call in flight, and each listener is
      // removed when its call ends: more than Node's default of 10 at once is expected, not a leak.
      if (!unlimitedParents.has(parent)) {
        setMaxListeners(0, parent);
        unlimitedParents.add(parent);
      }
      this.onParentAbort = () => this.abort(parent.reason);
      parent.addEventListener('abort', this.onParentAbort, { once: true });
    }
  }

  get aborted(): boolean {
    return this.ended;
  }

  get reason(): unknown {
    return this.why;
  }

  abort(why: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.why = why;
    this.controller?.abort(why);
    const waiting = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of waiting) listener(why);
  }

  onAbort(listener: (reason: unknown) => void): () => void {
    if (this.aborted) {
      listener(this.reason);
      return () => undefined;
    }
    (this.listeners ??= []).push(listener);
    return () => {
      this.listeners = this.listeners?.filter((l) => l !== listener);
    };
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  clear(): void {
    clearTimeout(this.timer);
    if (this.onParentAbort) this.parent?.removeEventListener('abort', this.onParentAbort);
  }
}

/** The timer's callback, one for every deadline (a closure per deadline would be one more object each). */
function expire(limit: TimedDeadline, timeoutReason: () => Error): void {
  limit.abort(timeoutReason());
}
