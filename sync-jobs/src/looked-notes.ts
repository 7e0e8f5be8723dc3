import type { RunStore } from './run-store';

/** How often a page's figure goes to Redis at most: progress moves several times a second, not per answer. */
const NOTE_EVERY_MS = 250;

/**
 * Notes how many addresses of each page being verified have an answer (RunStore.noteLooked), at most
 * every 250 ms per page, without waiting: progress between writes is worth a Redis call now and then,
 * not one per verification, and never a failed chunk (the page's count replaces it when it is written).
 */
export function lookedNotes(store: RunStore, runId: string): (pageIndex: number, addresses: number) => void {
  const lastSent = new Map<number, number>();
  return (pageIndex, addresses) => {
    const now = Date.now();
    if (now - (lastSent.get(pageIndex) ?? 0) < NOTE_EVERY_MS) return;
    lastSent.set(pageIndex, now);
    void store.noteLooked(runId, pageIndex, addresses).catch(() => undefined);
  };
}
