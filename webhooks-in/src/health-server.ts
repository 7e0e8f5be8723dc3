import { createServer } from 'node:http';
import express from 'express';
import { healthRoutes, type HealthOptions } from './routes/health';
import { listen } from './server';

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
  return {
    url: await listen(server, options.port, options.host),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
