import type { Contact, ContactEvent, Verification, WriteOptions } from '@verify-hub/core';
import type { StartRunRequest } from './contracts';

/** Queue names (under the pipeline's prefix). */
export const QUEUE = { runs: 'runs', chunks: 'chunks', events: 'events' } as const;

/** `runs` queue: `page` pages a run's source; `scheduled` starts a run from a job scheduler. */
export interface PageJobData {
  runId: string;
}
export type ScheduledJobData = StartRunRequest;

/** `chunks` queue: one page of a run. `carry` holds results of an interrupted attempt. */
export interface ChunkJobData {
  runId: string;
  pageIndex: number;
  contacts: Contact[];
  carry?: Verification[];
  /** When the first attempt verified (epoch ms): results made locally (rejected input) keep this time in a replay. */
  verifiedAt?: number;
  /** Its fair-shares lane (fair-lanes.ts): the job leaves the lane's waiting set when it starts. */
  lane?: string;
}

/** `chunks` queue: contacts whose result was unknown, verified again after a delay. */
export interface RecheckJobData {
  platform: string;
  connectionId?: string;
  runId?: string;
  /** 0 for the first re-check. */
  attempt: number;
  contacts: Contact[];
  writeOptions: WriteOptions;
  /** The reason of each contact's unknown result so far, by contact id: the run's breakdown moves it when a re-check knows better. */
  reasons?: Record<string, string>;
}

/** `events` queue: a webhook event, coalesced per contact. */
export interface EventJobData {
  event: ContactEvent & { connectionId: string };
}

/** Job ids are deterministic so that a job enqueued twice (after a crash) exists once. BullMQ forbids ':' in them. */
export const jobIds = {
  chunk: (runId: string, pageIndex: number) => `${runId}-p${pageIndex}`,
  pager: (runId: string, pageIndex: number, seq: number) => `${runId}-pager-${pageIndex}-${seq}`,
  recheck: (origin: string, attempt: number) => `${origin}-r${attempt + 1}`,
};

/** A parked chunk (paused run) waits this long unless `resume` promotes it first. */
export const PARK_MS = 365 * 86_400_000;
