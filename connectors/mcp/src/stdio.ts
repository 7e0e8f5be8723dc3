import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError } from '@verify-hub/core';
import { resolveVerifierFactory, type McpConnectorOptions } from './options';
import { createVerifyHubMcpServer } from './server';

export interface StdioMcpOptions extends McpConnectorOptions {
  /** The key every tool call uses: a code tool starts the server with it in ENGINE_API_KEY. */
  apiKey?: string;
  stdin?: NodeJS.ReadableStream & NodeJS.ReadStream;
  stdout?: NodeJS.WritableStream & NodeJS.WriteStream;
}

/**
 * `verify-hub mcp --stdio`: one server for the one client on the other end of stdin/stdout. Resolves
 * when the client closes the connection. Nothing else may write to stdout meanwhile.
 */
export async function runMcpStdio(options: StdioMcpOptions): Promise<void> {
  if (!options.apiKey && !options.verifierFor) {
    throw new ConfigError('ENGINE_API_KEY', 'required by `verify-hub mcp --stdio` (over stdio the assistant sends no key)');
  }
  const verifier = resolveVerifierFactory(options)(options.apiKey ?? '');
  const server = createVerifyHubMcpServer({ ...options, verifier });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const stdin = options.stdin ?? process.stdin;
  stdin.once('end', () => void server.close());
  await server.connect(transport);
  await closed;
}
