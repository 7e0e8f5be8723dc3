import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { apiKeyFromHeaders, engineKeyFromAuth, MISSING_KEY_CHALLENGE, MISSING_KEY_MESSAGE } from './auth';
import { resolveVerifierFactory, type McpConnectorOptions } from './options';
import { createVerifyHubMcpServer } from './server';

export interface McpHttpOptions extends McpConnectorOptions {
  /** Largest request body accepted (default 1 MiB; 100 addresses take about 30 KB). */
  maxBodyBytes?: number;
}

/**
 * Serves the MCP endpoint for plain Node `req`/`res`, so it mounts anywhere in one line, Express 5 included:
 * `app.all('/mcp', (req, res) => mcpHandler(req, res, req.body))` (with or without `express.json()` before it).
 */
export type McpHttpHandler = (req: IncomingMessage, res: ServerResponse, parsedBody?: unknown) => Promise<void>;

const DEFAULT_MAX_BODY = 1024 * 1024;

/**
 * Streamable HTTP in stateless mode: every POST gets a fresh server bound to the key in that request,
 * so nothing about a caller outlives its request and any instance behind a load balancer can answer.
 * The tools only answer requests (no server-initiated messages), so there is no GET stream and no session.
 */
export function createMcpHttpHandler(options: McpHttpOptions = {}): McpHttpHandler {
  const verifierFor = resolveVerifierFactory(options);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;

  return async (req, res, parsedBody) => {
    const apiKey = engineKeyFromAuth(req as IncomingMessage & { auth?: { extra?: Record<string, unknown> } }) ?? apiKeyFromHeaders(req.headers);
    if (!apiKey) {
      res.setHeader('WWW-Authenticate', MISSING_KEY_CHALLENGE);
      return sendJsonRpcError(res, 401, -32001, MISSING_KEY_MESSAGE);
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return sendJsonRpcError(res, 405, -32000, 'Method not allowed: this MCP endpoint is stateless and takes POST only.');
    }
    let body = parsedBody;
    if (body === undefined) {
      const read = await readJsonBody(req, maxBodyBytes);
      if (!read.ok) return sendJsonRpcError(res, read.status, read.status === 413 ? -32600 : -32700, read.message);
      body = read.value;
    }

    const server = createVerifyHubMcpServer({ ...options, verifier: verifierFor(apiKey) });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, `Internal error: ${(error as Error).message}`);
    }
  };
}

type BodyRead = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

async function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return { ok: false, status: 413, message: `Request body over ${limit} bytes` };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return { ok: false, status: 413, message: `Request body over ${limit} bytes` };
    chunks.push(chunk);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { ok: false, status: 400, message: 'Parse error: the body is not JSON' };
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
