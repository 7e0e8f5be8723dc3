import { bounceSourceOf, type BounceEvent, type ConnectionRecord, type Connector, type Logger } from '@verify-hub/core';
import type { AccuracyAnswer, AccuracyReport } from '@verify-hub/core';
import { accuracyReport, addReports } from './accuracy-report';
import type { BounceLedger, Correction } from './bounce-ledger';
import type { Keys } from './keys';
import { writeInBatches } from './host-write';
import { syncMetrics } from './metrics';
import type { Redis } from './redis';
import { RunLease } from './run-lease';

/** What one read of a connection's bounce source did: counts only (no address), for the logs, the CLI and the bench. */
export interface BounceReadSummary {
  connectionId: string;
  platform: string;
  pages: number;
  records: number;
  /** Cached verdicts corrected to invalid, and of those, written back to the platform or refused by it. */
  corrected: number;
  written: number;
  writeFailed: number;
  /** Platform calls made by the read and the write-back. */
  calls: number;
  /** Why nothing was read: the platform reports no bounces, or another process is reading this connection. */
  skipped?: string;
}

/** What the hub's accuracy page and API read (the pipeline implements it). */
export interface AccuracyService {
  accuracy(days: number, connectionId?: string): Promise<AccuracyAnswer>;
  /** Reads the platforms' bounce sources now: every connection, or one. */
  readBounces(connectionId?: string): Promise<BounceReadSummary[]>;
}

/** The report's longest window: the source is read this far back the first time. */
export const BOUNCE_LOOKBACK_DAYS = 90;

export interface BounceSyncDeps {
  redis: Redis;
  keys: Keys;
  ledger: BounceLedger;
  connections(): Promise<ConnectionRecord[]>;
  connectorOf(connection: ConnectionRecord): Connector;
  /** The platform's write batch size (`PlatformModule.writeBatchSize`): corrections are written through the host's write layer. */
  writeBatchSize?(platform: string): number | undefined;
  log: Logger;
}

/**
 * Reads each connection's bounce source into its ledger, from where the last read stopped (a cursor
 * per connection, saved after each page, so a crash resumes), one process at a time per connection (a
 * lease), and writes the corrected verdicts back to the platform at once: for Mailchimp that write is
 * the only one, since a cleaned member is never pulled again. Other connections holding a corrected
 * address get `invalid` from the shared cache at their next run.
 */
export class BounceSync {
  constructor(private readonly deps: BounceSyncDeps) {}

  async readAll(): Promise<BounceReadSummary[]> {
    const summaries: BounceReadSummary[] = [];
    for (const connection of await this.deps.connections()) summaries.push(await this.read(connection));
    return summaries;
  }

  async read(connection: ConnectionRecord): Promise<BounceReadSummary> {
    const summary: BounceReadSummary = { connectionId: connection.id, platform: connection.platform, pages: 0, records: 0, corrected: 0, written: 0, writeFailed: 0, calls: 0 };
    const connector = this.deps.connectorOf(connection);
    const source = bounceSourceOf(connector);
    if (!source) return { ...summary, skipped: 'the platform reports no bounces to verify-hub' };
    const { redis, keys, ledger } = this.deps;
    const lease = await RunLease.acquire(redis, keys.bounceLease(connection.id), 60_000);
    if (!lease) return { ...summary, skipped: 'another process is reading this connection' };
    const before = source.calls();
    try {
      let cursor = (await redis.get(keys.bounceCursor(connection.id))) ?? undefined;
      const since = new Date(Date.now() - BOUNCE_LOOKBACK_DAYS * 86_400_000);
      for (;;) {
        const page = await source.read(cursor, since);
        summary.pages++;
        summary.records += page.records.length;
        const corrections = await ledger.record(connection, page.records);
        await this.writeBack(connector, corrections, summary);
        cursor = page.cursor;
        await redis.set(keys.bounceCursor(connection.id), cursor);
        if (page.done) break;
      }
    } finally {
      await lease.release();
      summary.calls = source.calls() - before;
    }
    this.deps.log.info({ ...summary }, 'bounces read');
    return summary;
  }

  /** A bounce a platform pushed (a webhook): recorded as it comes, its correction written back. */
  async recordPushed(connection: ConnectionRecord, event: BounceEvent): Promise<void> {
    const corrections = await this.deps.ledger.record(connection, [event.delivery]);
    if (corrections.length) await this.writeBack(this.deps.connectorOf(connection), corrections, { corrected: 0, written: 0, writeFailed: 0 });
  }

  private async writeBack(connector: Connector, corrections: Correction[], summary: Pick<BounceReadSummary, 'corrected' | 'written' | 'writeFailed'>): Promise<void> {
    if (corrections.length === 0) return;
    summary.corrected += corrections.length;
    try {
      const results = corrections.map((c) => ({ contact: { id: c.contactId, email: c.email }, verification: c.verification }));
      const report = await writeInBatches(connector, results, {}, { writeBatchSize: this.deps.writeBatchSize?.(connector.platform) });
      summary.written += report.written;
      summary.writeFailed += report.failed.length;
      syncMetrics.writes.inc({ platform: connector.platform, outcome: 'written' }, report.written);
      if (report.failed.length) syncMetrics.writes.inc({ platform: connector.platform, outcome: 'failed' }, report.failed.length);
      for (const failure of report.failed) this.deps.log.warn({ platform: connector.platform, reason: failure.reason }, 'a corrected verdict was not written back; the cache holds it');
    } catch (error) {
      // The cache holds the correction: the connection's next run writes it.
      summary.writeFailed += corrections.length;
      syncMetrics.writes.inc({ platform: connector.platform, outcome: 'failed' }, corrections.length);
      this.deps.log.warn({ platform: connector.platform, err: (error as Error).message }, 'writing corrected verdicts back failed; the next run writes them');
    }
  }

  /** The accuracy report over every connection and per connection, for the last `days`. */
  async report(days: number, options: { connectionId?: string; now?: number } = {}): Promise<AccuracyAnswer> {
    const now = options.now ?? Date.now();
    const stored = new Map((await this.deps.connections()).map((c) => [c.id, c]));
    const ids = (await this.deps.ledger.connectionIds()).filter((id) => !options.connectionId || id === options.connectionId);
    const connections: AccuracyAnswer['connections'] = [];
    for (const id of ids) {
      const entries = await this.deps.ledger.addresses(id, now);
      const report: AccuracyReport = accuracyReport(entries, days, now, id);
      const record = stored.get(id);
      // A connection removed since keeps its ledger until the retention: its platform is the evidence's.
      const platform = record?.platform ?? entries.map((e) => (e.sent ?? e.hard ?? e.soft ?? e.policy)?.platform).find(Boolean) ?? 'unknown';
      connections.push({ ...report, connectionId: id, platform, ...(record?.label ? { label: record.label } : {}) });
    }
    return { days, overall: addReports(connections, days, now), connections };
  }
}
