import type { Job, Queue } from 'bullmq';
import type { ContactEvent } from '@verify-hub/core';

type RoutedEvent = ContactEvent & { connectionId: string };
interface IngestJobData {
  platform: string;
  events: RoutedEvent[];
}

/** Every state a delivery can sit in, the kept completed and failed ones included. */
const STATES = ['waiting', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/**
 * After a privacy deletion the pipeline has erased the contact from its own keys; the ingest queue
 * keeps deliveries too (the last 1,000 completed, failed ones for a week), and those still hold the
 * contact's events and address. This takes them out: the contact's events are dropped from every
 * delivery (the deletion's own included, Mailchimp's carries the address), and a delivery left with
 * no event is removed. A delivery being forwarded by another worker is locked: its events are left.
 * Returns how many events were dropped (a count, never the address).
 */
export async function eraseFromIngest(queue: Queue<IngestJobData>, erased: RoutedEvent, current?: Job<IngestJobData>): Promise<number> {
  const address = erased.email?.trim().toLowerCase();
  const holds = (event: RoutedEvent) =>
    (event.connectionId === erased.connectionId && event.contactId === erased.contactId) || (!!address && event.email?.trim().toLowerCase() === address);
  let dropped = 0;
  const jobs = (await queue.getJobs([...STATES])).filter((job): job is Job<IngestJobData> => !!job && job.id !== current?.id);
  for (const job of current ? [...jobs, current] : jobs) {
    const events = job.data.events ?? [];
    const kept = events.filter((event) => !holds(event));
    if (kept.length === events.length) continue;
    try {
      if (kept.length === 0 && job !== current) await job.remove();
      else await job.updateData({ ...job.data, events: kept });
      dropped += events.length - kept.length;
    } catch {
      // Locked by a forwarder elsewhere, or gone meanwhile: nothing more to do here.
    }
  }
  return dropped;
}
