import { platformLogger, type BackgroundTask, type PlatformContext, type PlatformHost } from '@verify-hub/core';
import { hubspotEnvironment } from './environment';
import { HubSpotJournal } from './journal';

/** How often the stored connections are looked through for journal ones added or removed. */
const RESCAN_MS = 60_000;

/**
 * HubSpot connections set to `events: journal` (a hub with no public URL) get a reader of the portal's
 * webhooks journal, feeding the receivers' event path; an APP_UNINSTALL there disconnects the
 * connection. A task of `serve` (with workers) and `verify-hub worker`: every process may run it, the
 * host's lease lets one at a time read a connection. Needs HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET.
 */
export function journalTask(context: PlatformContext, host: PlatformHost, options: { rescanMs?: number } = {}): BackgroundTask & { reading(): string[] } {
  const { config, connections, logger } = context;
  const env = hubspotEnvironment.read(config);
  const readers = new Map<string, { close(): Promise<void> }>();
  let warned = false;
  let timer: NodeJS.Timeout | undefined;
  let scanning: Promise<void> = Promise.resolve();

  const rescan = async () => {
    const wanted = (await connections?.list('hubspot'))?.filter((c) => c.settings?.events === 'journal') ?? [];
    if (wanted.length && (!env.HUBSPOT_CLIENT_ID || !env.HUBSPOT_CLIENT_SECRET)) {
      if (!warned) logger.error('HubSpot connections are set to read the webhooks journal, but HUBSPOT_CLIENT_ID or HUBSPOT_CLIENT_SECRET is not set: no events are read');
      warned = true;
      return;
    }
    for (const connection of wanted) {
      if (readers.has(connection.id)) continue;
      const portalId = String(connection.settings?.portalId ?? /^hubspot-(\d+)$/.exec(connection.id)?.[1] ?? '');
      const apiBase = String(connection.settings?.apiBase ?? env.HUBSPOT_API_BASE).replace(/\/+$/, '');
      const reader = host.journalReader({
        connectionId: connection.id,
        journal: new HubSpotJournal({ portalId, clientId: env.HUBSPOT_CLIENT_ID!, clientSecret: env.HUBSPOT_CLIENT_SECRET!, apiBase, logger: platformLogger(logger, 'hubspot', connection.id) }),
        onUninstalled: () => host.disconnectUninstalled(connection.id),
      });
      readers.set(connection.id, reader);
      reader.start();
    }
    // A connection disconnected (or set back to webhooks): its reader stops.
    for (const [id, reader] of readers) {
      if (wanted.some((c) => c.id === id)) continue;
      readers.delete(id);
      await reader.close();
    }
  };
  const scan = () => rescan().catch((error: unknown) => logger.warn({ err: error }, 'event journal: could not list the connections'));

  return {
    name: 'webhooks-journal',
    /** Connection ids being read now. */
    reading: () => [...readers.keys()],
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
      await Promise.all([...readers.values()].map((reader) => reader.close()));
      readers.clear();
    },
  };
}
