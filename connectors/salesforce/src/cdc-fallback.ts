import type { EventJournal, EventJournalEntry, Logger } from '@verify-hub/core';
import { ChangeDataCaptureUnavailableError, type CdcJournal } from './cdc-journal';

/** How often an org without Change Data Capture is asked what changed (a `changed-since` run). */
export const DEFAULT_POLL_MS = 15 * 60_000;
/**
 * Each poll reads from a little before the previous one started: a record saved in a transaction that
 * committed after that poll read (its SystemModstamp is the save time) is not missed. Records read twice
 * cost no credit (their verdicts are stored) and no write (unchanged values are skipped).
 */
export const POLL_OVERLAP_MS = 5 * 60_000;
const POLL_PREFIX = 'poll:';

export interface ChangeJournalOptions {
  cdc: CdcJournal;
  /** Starts a `changed-since:<ISO>` run of the connection (the host's `startRun`); absent where the host cannot. */
  startRun?: (scope: string) => Promise<{ id: string }>;
  /** Epoch ms the connection was made: the first poll reads what changed since then. */
  since: number;
  pollMs?: number;
  logger?: Logger;
}

/**
 * A connection's changes: Change Data Capture while the org has it, else scheduled pulls by
 * SystemModstamp. An org whose edition has no Change Data Capture (Professional) refuses the channels;
 * the journal then says so once, plainly, and from there starts a `changed-since` sync run every
 * `pollMs`, from a little before the previous one started (its offset `poll:<epoch ms>`, kept by the
 * host's reader like the replay ids). The runs verify and write back in bulk like any sync (stored
 * verdicts are not bought again, unchanged values not written), so the hub's own write-backs, which
 * move SystemModstamp, cost a read and nothing else. An org that gains Change Data Capture is streamed
 * from the next process start on, from the last poll's time.
 */
export class SalesforceChangeJournal implements EventJournal {
  private polling = false;
  private closed = false;

  constructor(private readonly options: ChangeJournalOptions) {}

  earliest(): Promise<EventJournalEntry | undefined> {
    return this.after('');
  }

  async after(offset: string): Promise<EventJournalEntry | undefined> {
    if (this.closed) return undefined;
    if (!this.polling) {
      try {
        return await this.options.cdc.after(offset.startsWith(POLL_PREFIX) ? '' : offset, pollTime(offset));
      } catch (error) {
        if (!(error instanceof ChangeDataCaptureUnavailableError)) throw error;
        this.polling = true;
        this.options.logger?.warn(
          { reason: error.message },
          `Salesforce Change Data Capture is not available in this org (not in Professional Edition): Contacts and Leads changed since the last look are pulled every ${Math.round((this.options.pollMs ?? DEFAULT_POLL_MS) / 60_000)} minutes instead`,
        );
      }
    }
    return this.poll(offset);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.options.cdc.close();
  }

  /** A `changed-since` run when the last one is `pollMs` old (undefined until then: the reader waits its idle time). */
  private async poll(offset: string): Promise<EventJournalEntry | undefined> {
    const last = pollTime(offset);
    const now = Date.now();
    if (last !== undefined && now - last < (this.options.pollMs ?? DEFAULT_POLL_MS)) return undefined;
    if (!this.options.startRun) {
      this.options.logger?.error('this process cannot start runs: the changes of an org without Change Data Capture are not pulled (run `verify-hub salesforce sync --scope changed` on a schedule)');
      return undefined;
    }
    const from = new Date((last ?? this.options.since) - POLL_OVERLAP_MS).toISOString();
    const run = await this.options.startRun(`changed-since:${from}`);
    this.options.logger?.info({ runId: run.id, from }, 'Salesforce: pulled what changed since the last look (no Change Data Capture in this org)');
    return { offset: `${POLL_PREFIX}${now}`, events: [], uninstalled: false };
  }
}

/** The time of the last poll an offset names (`poll:<epoch ms>`), if it is one. */
function pollTime(offset: string): number | undefined {
  if (!offset.startsWith(POLL_PREFIX)) return undefined;
  const at = Number(offset.slice(POLL_PREFIX.length));
  return Number.isFinite(at) && at > 0 ? at : undefined;
}
