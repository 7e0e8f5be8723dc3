import { queuePrefix } from './redis';

/**
 * Every Redis key the pipeline owns, under one prefix (BullMQ's queues use the same prefix), so a
 * deployment or a test can be told apart and cleaned up by prefix.
 *
 * On a Redis Cluster (`cluster: true`) keys that one command or script uses together share a hash
 * tag: a run's keys `{<run id>}`, a limiter's `{<limiter key>}`, the connections `{connections}`;
 * different runs land on different slots. The queues' prefix becomes `{<prefix>}` (all of BullMQ's
 * keys in one slot, as its scripts need). A single server keeps the untagged names, so existing data
 * stays where it was. The layout is in the package README.
 */
export class Keys {
  readonly cluster: boolean;
  /** BullMQ's prefix for the pipeline's queues. */
  readonly queuePrefix: string;

  constructor(
    readonly prefix = 'vh:sync',
    options: { cluster?: boolean } = {},
  ) {
    this.cluster = options.cluster ?? false;
    this.queuePrefix = queuePrefix(prefix, this.cluster);
  }

  /** `name` as a hash tag on a cluster, as it is on a single server. */
  private tag(name: string): string {
    return this.cluster ? `{${name}}` : name;
  }
  run(id: string): string {
    return `${this.prefix}:run:${this.tag(id)}`;
  }
  /** Sorted set of run ids by creation time. */
  runIndex(): string {
    return `${this.prefix}:runs`;
  }
  /** Pages whose chunk has been counted: makes a re-delivered chunk count once. */
  pagesDone(id: string): string {
    return `${this.run(id)}:pages-done`;
  }
  /** Chunk jobs parked while the run is paused. */
  parked(id: string): string {
    return `${this.run(id)}:parked`;
  }
  report(id: string): string {
    return `${this.run(id)}:report`;
  }
  /** Counts of the run's results by risk and reason, and its failure total (kept as report rows are added). */
  breakdown(id: string): string {
    return `${this.run(id)}:breakdown`;
  }
  /** The run's first failed report rows (capped). */
  failures(id: string): string {
    return `${this.run(id)}:failures`;
  }
  /** Held by the one job writing a single-writer run (a file), so a resumed run never has two writers. */
  writer(id: string): string {
    return `${this.run(id)}:writer`;
  }
  /** Pages whose write began: a chunk replayed after a kill reads its contacts again before writing. */
  writeStarted(id: string): string {
    return `${this.run(id)}:write-started`;
  }
  /** The cursor each page was pulled from (page index -> cursor), so a lost chunk job can be pulled again. */
  pageCursors(id: string): string {
    return `${this.run(id)}:page-cursors`;
  }
  /**
   * Credits reserved against the run's cap by chunks verifying now: page index -> `<credits>|<token>`.
   * Per page, so a replay of a killed chunk replaces its own reservation, counting a page releases
   * it, and the reconciler releases those of pages whose chunk job is no longer running.
   */
  reservations(id: string): string {
    return `${this.run(id)}:reserved`;
  }
  /**
   * Addresses already verified (or found cached) in pages not counted yet: page index -> how many. Its
   * sum is the run's `looking` field, so progress follows verifications, not only pages written.
   */
  looking(id: string): string {
    return `${this.run(id)}:looking`;
  }
  /** Purchases counted in the run's credits (address and answer time), so a purchase resent after a reconnect counts once. */
  purchases(id: string): string {
    return `${this.run(id)}:purchases`;
  }
  /** The run's answer for each address it bought (address -> result JSON), the first stored: one result an address in a run. */
  answers(id: string): string {
    return `${this.run(id)}:answers`;
  }
  /** What each page's write started on the platform (`<page>:<name>` -> a bulk job id), for a replay to resume (write-progress.ts). */
  writeProgress(id: string): string {
    return `${this.run(id)}:write-progress`;
  }
  /** Held by the one worker reconciling runs at a time. */
  reconcileLock(): string {
    return `${this.prefix}:reconcile-lock`;
  }
  /** Every key of one run (the run hash first). */
  runKeys(id: string): string[] {
    return [this.run(id), this.pagesDone(id), this.parked(id), this.report(id), this.breakdown(id), this.failures(id), this.writer(id), this.writeStarted(id), this.pageCursors(id), this.purchases(id), this.reservations(id), this.looking(id), this.answers(id), this.writeProgress(id)];
  }
  /** Schedule definitions by id (JSON): kept while a schedule is paused, when it has no BullMQ job scheduler. */
  schedules(): string {
    return `${this.prefix}:schedules`;
  }
  cache(normalized: string): string {
    return `${this.prefix}:cache:${normalized}`;
  }
  limiterStarts(key: string): string {
    return `${this.prefix}:limiter:${this.tag(key)}:starts`;
  }
  limiterRunning(key: string): string {
    return `${this.prefix}:limiter:${this.tag(key)}:running`;
  }
  connection(id: string): string {
    return this.cluster ? `${this.connectionIndex()}:${id}` : `${this.prefix}:connection:${id}`;
  }
  connectionIndex(): string {
    return `${this.prefix}:${this.tag('connections')}`;
  }
  /** A fair-shares lane (a connection's, or a run's): ids of its chunk jobs not started yet (fair-lanes.ts). */
  lane(name: string): string {
    return `${this.prefix}:lane:${name}`;
  }
  /** A connection's bounce ledger (bounce-ledger.ts): one field per address and kind of evidence. */
  bounceLedger(connectionId: string): string {
    return `${this.prefix}:bounces:${this.tag(connectionId)}`;
  }
  /** Where a connection's bounce source is read from next, and the lease of the one process reading it. */
  bounceCursor(connectionId: string): string {
    return `${this.bounceLedger(connectionId)}:cursor`;
  }
  bounceLease(connectionId: string): string {
    return `${this.bounceLedger(connectionId)}:lease`;
  }
  /** The connections that have a bounce ledger. */
  bounceConnections(): string {
    return `${this.prefix}:bounce-connections`;
  }
  eventGate(key: string): string {
    return `${this.prefix}:event-gate:${key}`;
  }
}
