import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHttpHandler, type McpHttpOptions } from './http-handler';

export interface StandaloneMcpServerOptions extends McpHttpOptions {
  port?: number;
  /** Default 127.0.0.1; put a TLS-terminating proxy in front before exposing it. */
  host?: string;
  /** Default `/mcp`. */
  path?: string;
}

export interface StandaloneMcpServer {
  /** The endpoint to give an assistant, for example `http://127.0.0.1:8080/mcp`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** `verify-hub mcp --port N`: the MCP endpoint on its own HTTP server. */
export async function startMcpHttpServer(options: StandaloneMcpServerOptions = {}): Promise<StandaloneMcpServer> {
  const path = options.path ?? '/mcp';
  const handler = createMcpHttpHandler(options);
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: `not found: the MCP endpoint is ${path}` }));
      return;
    }
    void handler(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${path}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
