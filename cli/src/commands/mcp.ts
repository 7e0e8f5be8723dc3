import type { Command } from 'commander';
import { ConfigError, createLogger, HOSTED_ENGINE_URL, loadConfig } from '@verify-hub/core';
import { runMcpStdio, startMcpHttpServer } from '@verify-hub/mcp';

interface McpCommandOptions {
  stdio?: boolean;
  port?: string;
  host: string;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('--port', 'must be a whole number from 0 to 65535');
  return port;
}

/**
 * `verify-hub mcp --port N` serves the MCP tools over Streamable HTTP at /mcp, each caller bringing its
 * own key; `verify-hub mcp --stdio` serves one code tool over stdin/stdout with ENGINE_API_KEY.
 * Both use ENGINE_URL (default the hosted engine).
 */
export function register(program: Command): void {
  program
    .command('mcp')
    .description('Serve the email-verification tools to AI assistants (Model Context Protocol)')
    .option('--stdio', 'speak MCP over stdin/stdout, for code tools that start the server themselves (key: ENGINE_API_KEY)')
    .option('--port <n>', 'serve Streamable HTTP at http://HOST:PORT/mcp (default: PORT, 8080); callers send X-API-Key')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .action(async (opts: McpCommandOptions) => {
      const config = loadConfig(process.env);
      const engineUrl = config.ENGINE_URL ?? HOSTED_ENGINE_URL;
      const concurrency = config.ENGINE_CONCURRENCY;
      if (opts.stdio) {
        if (opts.port !== undefined) throw new ConfigError('--port', 'cannot be combined with --stdio');
        // stdout carries the protocol: diagnostics go to stderr only.
        await runMcpStdio({ apiKey: config.ENGINE_API_KEY, engineUrl, concurrency });
        return;
      }
      const port = opts.port === undefined ? config.PORT : parsePort(opts.port);
      const log = createLogger({ level: config.LOG_LEVEL });
      const server = await startMcpHttpServer({ port, host: opts.host, engineUrl, concurrency });
      log.info({ url: server.url, engine: engineUrl }, 'MCP server listening');
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void server.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
