import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { healthRoutes, type HealthOptions } from './routes/health';

export interface HealthServerOptions extends HealthOptions {
  port: number;
  host?: string;
}

export interface HealthServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `/healthz` and `/readyz` (the hub's own routes) alone on a port: for a process that serves no other
 * HTTP, such as `verify-hub worker`, so that a container health check or an orchestrator can probe it.
 */
export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRoutes(options));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
