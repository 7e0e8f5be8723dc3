import type { WorkerOptions } from 'bullmq';

/** How long a worker's hold on a job lasts unrenewed, how often dead holders are looked for, and how often a job may be taken back. */
export interface JobHoldSettings {
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
}

/** The BullMQ worker options for those settings; one left unset (or a zero duration) keeps BullMQ's default. */
export function jobHoldOptions({ lockDurationMs, stalledIntervalMs, maxStalledCount }: JobHoldSettings): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return {
    ...(lockDurationMs ? { lockDuration: lockDurationMs } : {}),
    ...(stalledIntervalMs ? { stalledInterval: stalledIntervalMs } : {}),
    ...(maxStalledCount !== undefined ? { maxStalledCount } : {}),
  };
}
