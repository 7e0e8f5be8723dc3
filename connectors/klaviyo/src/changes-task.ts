import { type BackgroundTask, type PlatformContext, type PlatformHost } from '@verify-hub/core';
import { KlaviyoConnector } from './connector';
import { klaviyoEnvironment } from './environment';
import { KlaviyoChangesJournal } from './changes-journal';

/** How often the stored connections are looked through for Klaviyo ones added or removed. */
const RESCAN_MS = 60_000;

/**
 * The scheduled changed-since pull, a task of `serve` (with workers) and `verify-hub worker`: every
 * Klaviyo connection gets a reader of its changed profiles (KlaviyoChangesJournal) every
 * KLAVIYO_CHANGES_POLL_SECONDS, into the same event path as the flow webhook. It catches what the flow
 * does not send (a profile created outside a list, a changed address) and what a lost delivery missed.
 * Every process may run it; the host's lease lets one at a time read a connection.
 */
export function changesTask(context: PlatformContext, host: PlatformHost, options: { rescanMs?: number } = {}): BackgroundTask {
  const { config, connections, logger } = context;
  const env = klaviyoEnvironment.read(config);
  /** Readers by connection id, with the connection's creation time: a reconnected connection (new credentials) gets a new reader. */
  const readers = new Map<string, { createdAt: string; close(): Promise<void> }>();
  let timer: NodeJS.Timeout | undefined;
  let scanning: Promise<void> = Promise.resolve();

  const rescan = async () => {
    const wanted = (await connections?.list('klaviyo')) ?? [];
    for (const [id, reader] of readers) {
      if (wanted.some((c) => c.id === id && c.createdAt === reader.createdAt)) continue;
      readers.delete(id);
      await reader.close();
    }
    for (const connection of wanted) {
      if (readers.has(connection.id) || typeof connection.settings?.account !== 'string') continue;
      // The connector as runs get it: the pipeline's limiters, shared with every run and event of the account.
      const connector = await context.openConnector(connection.id);
      if (!(connector instanceof KlaviyoConnector)) continue;
      const api = connector.api;
      const reader = host.journalReader({
        connectionId: connection.id,
        journal: new KlaviyoChangesJournal(api, connection.settings.account, (email) => host.storedVerdict(email)),
        onUninstalled: async () => undefined,
        idleMs: env.KLAVIYO_CHANGES_POLL_SECONDS * 1000,
      });
      readers.set(connection.id, { createdAt: connection.createdAt, close: () => reader.close() });
      reader.start();
    }
  };
  const scan = () => rescan().catch((error: unknown) => logger.warn({ err: error }, 'Klaviyo changes: could not list the connections'));

  return {
    name: 'klaviyo-changes',
    start() {
      scanning = scan();
      timer = setInterval(() => {
        scanning = scanning.then(scan);
      }, options.rescanMs ?? Math.min(RESCAN_MS, env.KLAVIYO_CHANGES_POLL_SECONDS * 1000));
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await scanning;
      await Promise.all([...readers.values()].map((reader) => reader.close()));
      readers.clear();
    },
  };
}
