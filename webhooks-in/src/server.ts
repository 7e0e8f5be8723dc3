import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HubApp } from './app';

export interface HubServerOptions {
  port: number;
  host?: string;
  /** How long in-flight requests may take to finish before their connections are cut (default 10 s). */
  drainTimeoutMs?: number;
  /** Closed after the HTTP server, in order: workers first, then queues and Redis (the caller's deps). */
  closeAfter?: (() => Promise<void>)[];
}

export interface HubServer {
  server: Server;
  url: string;
  /** Graceful: readiness fails, no new connections, in-flight requests drain, then everything closes. Idempotent. */
  close(): Promise<void>;
}

export async function startHubServer(hub: HubApp, options: HubServerOptions): Promise<HubServer> {
  const server = createServer(hub.app);
  // Slightly above a typical load balancer's idle timeout, so the balancer closes idle keep-alives first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const url = await listen(server, options.port, options.host);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      hub.markClosing();
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
      timer.unref();
      await drained;
      clearTimeout(timer);
      await hub.close();
      for (const closeNext of options.closeAfter ?? []) {
        await closeNext().catch((error: unknown) => hub.logger.error({ err: error }, 'error while shutting down'));
      }
    })());

  return { server, url, close };
}

/** Listens on `port` (0: any free one) and `host` (default every interface); resolves with the URL it listens on. */
export async function listen(server: Server, port: number, host = '0.0.0.0'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}
