import { randomUUID } from 'node:crypto';
import { RateLimitError, type ContactEvent, type EventJournal, type EventJournalEntry, type Logger, runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';

export type { EventJournal, EventJournalEntry } from '@verify-hub/core';

export interface JournalReaderOptions {
  redis: Redis;
  /** Where the offset of the last entry handed over is kept (one key per connection); `<offsetKey>:progress` holds how far into the next entry. */
  offsetKey: string;
  /** Held while reading, so one process at a time reads a connection's journal. */
  leaseKey: string;
  connectionId: string;
  journal: EventJournal;
  /** The receivers' event path (`RunService.enqueueEvent`): durable once it resolves, and drops a repeated dedupe key. */
  enqueue: (event: ContactEvent & { connectionId: string }) => Promise<unknown>;
  onUninstalled: () => Promise<unknown>;
  logger: Logger;
  /** Wait between polls once caught up (30 s). */
  idleMs?: number;
  /** The longest wait after failed polls (60 s): the first waits `idleMs`, each further one twice the last. */
  errorMs?: number;
  leaseMs?: number;
}

const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Reads a connection's event journal into the same event path as the webhook receivers. Each entry's
 * events are handed over in order, and only then is its offset saved: a reader stopped mid-entry
 * reads that entry again from the event after the last one it handed over (progress saved per event;
 * the one event that may go twice is dropped by the event path's dedupe key), so after an outage
 * within the journal's retention nothing is missed or repeated. An
 * offset past the retention is logged as a gap, and reading starts again at the earliest entry kept.
 */
export class JournalReader {
  private readonly owner = randomUUID();
  private stopped = false;
  private loop?: Promise<void>;
  private wake?: () => void;

  constructor(private readonly options: JournalReaderOptions) {}

  /** Reads every entry after the saved offset; returns how many entries and events were handed over. Undefined when another process holds the lease. */
  async catchUp(): Promise<{ entries: number; events: number; uninstalled: boolean } | undefined> {
    const { redis, leaseKey } = this.options;
    const leaseMs = this.options.leaseMs ?? 120_000;
    if ((await redis.set(leaseKey, this.owner, 'PX', leaseMs, 'NX')) !== 'OK') return undefined;
    const read = { entries: 0, events: 0, uninstalled: false };
    try {
      while (!this.stopped) {
        const entry = await this.next();
        if (!entry) break;
        await this.handOver(entry);
        read.entries++;
        read.events += entry.events.length;
        if (entry.uninstalled) {
          await this.options.onUninstalled();
          read.uninstalled = true;
          this.stopped = true;
          await redis.del(this.options.offsetKey, this.progressKey);
          break;
        }
        await redis.set(this.options.offsetKey, entry.offset);
        await redis.del(this.progressKey);
        await runScript(redis, EXTEND, 1, leaseKey, this.owner, String(leaseMs));
      }
    } finally {
      await runScript(redis, RELEASE, 1, leaseKey, this.owner).catch(() => undefined);
    }
    return read;
  }

  private get progressKey(): string {
    return `${this.options.offsetKey}:progress`;
  }

  /**
   * The entry's events in order, skipping those a stopped reader already handed over (its progress is
   * saved after each event). An event handed over just before a stop, its progress not yet saved, goes
   * again: the event path drops it by its dedupe key.
   */
  private async handOver(entry: EventJournalEntry): Promise<void> {
    const [doneIn, doneCount] = ((await this.options.redis.get(this.progressKey)) ?? '').split('|');
    const skip = doneIn === entry.offset ? Number(doneCount) || 0 : 0;
    for (let i = skip; i < entry.events.length; i++) {
      await this.options.enqueue({ ...entry.events[i]!, connectionId: this.options.connectionId });
      await this.options.redis.set(this.progressKey, `${entry.offset}|${i + 1}`);
    }
  }

  private async next(): Promise<EventJournalEntry | undefined> {
    const offset = await this.options.redis.get(this.options.offsetKey);
    if (!offset) return this.options.journal.earliest();
    try {
      return await this.options.journal.after(offset);
    } catch (error) {
      if ((error as { code?: string }).code !== 'JOURNAL_OFFSET_EXPIRED') throw error;
      this.options.logger.error({ connectionId: this.options.connectionId }, 'event journal: the saved offset is past the journal\'s retention; events since then were lost, reading from the earliest entry kept');
      await this.options.redis.del(this.options.offsetKey);
      return this.options.journal.earliest();
    }
  }

  /**
   * Polls until closed: catches up, waits `idleMs`. A failed poll is logged and tried again after a
   * wait that starts at `idleMs` and doubles up to `errorMs`, or when a rate limit resets: so a poller
   * of a second is not left a minute behind by one refused read, and a platform that is down is not
   * asked every second.
   */
  start(): void {
    this.loop ??= (async () => {
      const idleMs = this.options.idleMs ?? 30_000;
      const maxErrorMs = Math.max(idleMs, this.options.errorMs ?? 60_000);
      let failures = 0;
      while (!this.stopped) {
        let waitMs = idleMs;
        try {
          await this.catchUp();
          failures = 0;
        } catch (error) {
          failures++;
          const backoff = Math.min(maxErrorMs, idleMs * 2 ** Math.min(failures - 1, 20));
          waitMs = error instanceof RateLimitError ? Math.min(maxErrorMs, Math.max(idleMs, error.waitMs())) : backoff;
          this.options.logger.warn({ connectionId: this.options.connectionId, reason: error instanceof Error ? error.message : String(error), retryInMs: waitMs }, 'event journal: read failed; trying again');
        }
        if (!this.stopped) await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    })();
  }

  /** Stops after the entry being handed over (its offset saved), or at once when idle. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
  }
}
