import { platformLogger, type BackgroundTask, type ConnectionRecord, type PlatformContext, type PlatformHost } from '@verify-hub/core';
import { CDC_OBJECTS, type CdcObject } from './cdc-events';
import { DEFAULT_POLL_MS, SalesforceChangeJournal } from './cdc-fallback';
import { CdcJournal } from './cdc-journal';
import { openSalesforceSession } from './connector';
import type { SalesforceSession } from './session';

/** How often the stored connections are looked through for ones added or removed. */
const RESCAN_MS = 60_000;

export interface ChangeEventsTaskOptions {
  rescanMs?: number;
  /** How long a read waits for a change event before renewing the reader's lease (20 s). */
  heartbeatMs?: number;
  /** How often an org without Change Data Capture is pulled (15 minutes). */
  pollMs?: number;
}

/**
 * Every Salesforce connection's changes, read by a task of `serve` (with workers) and `verify-hub
 * worker`: Change Data Capture over jsforce's streaming client (no public URL needed), or scheduled
 * `changed-since` runs where the org has no Change Data Capture (cdc-fallback.ts). Each connection's
 * journal goes through the host's reader, whose offset (the replay ids, or the last poll's time) and
 * lease live in Redis: every process may run the task, one at a time reads a connection, and a restart
 * resumes where the last one stopped. New contacts and changed addresses go into the receivers' event
 * path, which verifies them and writes them back.
 */
export function changeEventsTask(context: PlatformContext, host: PlatformHost, options: ChangeEventsTaskOptions = {}): BackgroundTask & { reading(): string[]; ignored(connectionId: string): Record<string, number> } {
  const { connections, logger } = context;
  const readers = new Map<string, { reader: { start(): void; close(): Promise<void> }; journal: SalesforceChangeJournal; cdc: CdcJournal }>();
  let timer: NodeJS.Timeout | undefined;
  let scanning: Promise<void> = Promise.resolve();

  const readerOf = (connection: ConnectionRecord) => {
    const settings = connection.settings ?? {};
    const objects = (Array.isArray(settings.objects) ? settings.objects : CDC_OBJECTS).filter((o): o is CdcObject => (CDC_OBJECTS as string[]).includes(String(o)));
    const since = Date.parse(connection.createdAt) || Date.now();
    const log = platformLogger(logger, 'salesforce', connection.id);
    let session: SalesforceSession | undefined;
    const cdc = new CdcJournal({
      orgId: String(settings.orgId ?? connection.id),
      objects: objects.length ? objects : CDC_OBJECTS,
      since,
      heartbeatMs: options.heartbeatMs,
      logger: log,
      open: async ({ renew }) => {
        session ??= await openSalesforceSession(context, connection.id);
        const current = session;
        // A REST call with the refused token answers 401, and jsforce renews the session (saved for every worker).
        if (renew) await current.call((c) => c.request(`${current.dataPath}/limits`));
        return current.connection;
      },
    });
    const journal = new SalesforceChangeJournal({
      cdc,
      since,
      pollMs: options.pollMs,
      logger: log,
      ...(host.startRun ? { startRun: (scope: string) => host.startRun!({ platform: 'salesforce', connectionId: connection.id, scope }) } : {}),
    });
    const reader = host.journalReader({ connectionId: connection.id, journal, onUninstalled: async () => undefined, idleMs: Math.min(options.pollMs ?? DEFAULT_POLL_MS, 60_000) });
    return { reader, journal, cdc };
  };

  const rescan = async () => {
    const wanted = (await connections?.list('salesforce')) ?? [];
    for (const connection of wanted) {
      if (readers.has(connection.id)) continue;
      const entry = readerOf(connection);
      readers.set(connection.id, entry);
      entry.reader.start();
    }
    // A connection disconnected: its reader stops (and unsubscribes).
    for (const [id, entry] of readers) {
      if (wanted.some((c) => c.id === id)) continue;
      readers.delete(id);
      await entry.journal.close();
      await entry.reader.close();
    }
  };
  const scan = () => rescan().catch((error: unknown) => logger.warn({ err: error }, 'Salesforce change events: could not list the connections'));

  return {
    name: 'salesforce-change-events',
    reading: () => [...readers.keys()],
    /** Change events of a connection read and left alone, by why (own_write: the echo of the hub's write-back). */
    ignored: (connectionId) => ({ ...readers.get(connectionId)?.cdc.ignored }),
    start() {
      scanning = scan();
      timer = setInterval(() => {
        scanning = scanning.then(scan);
      }, options.rescanMs ?? RESCAN_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await scanning;
      await Promise.all([...readers.values()].map(async ({ journal, reader }) => {
        await journal.close();
        await reader.close();
      }));
      readers.clear();
    },
  };
}
