import { runScript } from '@verify-hub/core';
import type { Redis } from './redis';
import type { Keys } from './keys';

/** BullMQ 6.7's highest priority number (`2 ** 21 - 1`); 1 is served first. */
export const PRIORITY_LIMIT = 2 ** 21 - 1;

/** How long a lane's set outlives its last chunk (a job removed without starting, by an erasure or a purge, is forgotten then). */
const LANE_TTL_MS = 86_400_000;

/**
 * Adds a chunk job to its lane's set of waiting jobs and returns the lane's count of them: the job's
 * BullMQ priority. SADD is idempotent, so a chunk enqueued again (a crash, the reconciler) counts once.
 */
const ADMIT = `
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('SCARD', KEYS[1])`;

/**
 * Round-robin between connections on the shared `chunks` queue (sync-jobs/README.md, "Fair shares").
 * Each connection (or a run without one) is a lane; Redis keeps the ids of its chunk jobs that have
 * not started yet. A chunk's priority is its lane's count of waiting chunks, itself included: the
 * k-th waiting chunk of every lane gets priority k, so lanes alternate, FIFO within equal priority. A
 * small run's few chunks (priorities 1, 2, 3) go ahead of a big run's backlog (the pager keeps up to
 * `maxOutstandingPages` of it waiting, so its new chunks sit near that number), and two big runs meet
 * at the same number and alternate. The numbers stay below `maxOutstandingPages` per run of a lane,
 * far under BullMQ's 2^21 limit, whatever the size or count of runs: they never wrap.
 */
export class FairLanes {
  constructor(private readonly redis: Redis, private readonly keys: Keys) {}

  /** The lane of a run: its connection, else the run itself (a file upload or a run without a stored connection). */
  static laneOf(run: { id: string; connectionId?: string }): string {
    return run.connectionId ? `c:${run.connectionId}` : `r:${run.id}`;
  }

  /** Notes a chunk job as waiting in its lane; returns the BullMQ priority to add it with. */
  async admit(lane: string, jobId: string): Promise<number> {
    const waiting = (await runScript(this.redis, ADMIT, 1, this.keys.lane(lane), jobId, LANE_TTL_MS)) as number;
    return Math.min(Math.max(1, waiting), PRIORITY_LIMIT);
  }

  /** A chunk job started (or started again): it no longer waits in its lane. */
  async started(lane: string, jobId: string): Promise<void> {
    await this.redis.srem(this.keys.lane(lane), jobId);
  }
}
