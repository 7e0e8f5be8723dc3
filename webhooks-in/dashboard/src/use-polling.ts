import { useEffect, useState } from 'preact/hooks';

/**
 * Runs `tick` now and again after the delay it returns, until it returns null or the component
 * unmounts (the request in flight is aborted then). One request at a time: the next waits for the
 * previous answer. Returns a function that restarts the loop at once (after the user changed something).
 */
export function usePolling(tick: (signal: AbortSignal) => Promise<number | null>, deps: unknown[]): () => void {
  const [restarts, setRestarts] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      const delay = await tick(controller.signal).catch(() => null);
      if (controller.signal.aborted || delay === null) return;
      timer = setTimeout(() => void run(), delay);
    };
    void run();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
    // `deps` are the caller's: what the tick reads.
  }, [...deps, restarts]);
  return () => setRestarts((n) => n + 1);
}
