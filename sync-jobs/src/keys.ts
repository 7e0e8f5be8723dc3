/**
 * Every Redis key the pipeline owns, under one prefix (BullMQ's queues use the same prefix), so a
 * deployment or a test can be told apart and cleaned up by prefix.
 */
export class Keys {
  constructor(readonly prefix = 'vh:sync') {}
  run(id: string): string {
    return `${this.prefix}:run:${id}`;
  }
  /** Sorted set of run ids by creation time. */
  runIndex(): string {
    return `${this.prefix}:runs`;
  }
  /** Pages whose chunk has been counted: makes a re-delivered chunk count once. */
  pagesDone(id: string): string {
    return `${this.prefix}:run:${id}:pages-done`;
  }
  /** Chunk jobs parked while the run is paused. */
  parked(id: string): string {
    return `${this.prefix}:run:${id}:parked`;
  }
  report(id: string): string {
    return `${this.prefix}:run:${id}:report`;
  }
  cache(normalized: string): string {
    return `${this.prefix}:cache:${normalized}`;
  }
  limiterStarts(key: string): string {
    return `${this.prefix}:limiter:${key}:starts`;
  }
  limiterRunning(key: string): string {
    return `${this.prefix}:limiter:${key}:running`;
  }
  connection(id: string): string {
    return `${this.prefix}:connection:${id}`;
  }
  connectionIndex(): string {
    return `${this.prefix}:connections`;
  }
  eventGate(key: string): string {
    return `${this.prefix}:event-gate:${key}`;
  }
}
