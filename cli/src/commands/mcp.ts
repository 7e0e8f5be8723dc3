import type { Command } from 'commander';
import { ConfigError, createLogger, HOSTED_ENGINE_URL, loadConfig } from '@verify-hub/core';
import type * as Mcp from '@verify-hub/mcp';
import { portNumber } from '../options';
import { untilSignal } from '../until-signal';

interface McpCommandOptions {
  stdio?: boolean;
  port?: number;
  host: string;
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
    .option('--port <n>', 'serve Streamable HTTP at http://HOST:PORT/mcp (default: PORT, 8080); callers send X-API-Key', portNumber)
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .action(async (opts: McpCommandOptions) => {
      // Loaded by this command only: every other command (serve among them) starts without the MCP SDK.
      const { runMcpStdio, startMcpHttpServer } = require('@verify-hub/mcp') as typeof Mcp;
      const config = loadConfig(process.env);
      const engineUrl = config.ENGINE_URL ?? HOSTED_ENGINE_URL;
      const concurrency = config.ENGINE_CONCURRENCY;
      if (opts.stdio) {
        if (opts.port !== undefined) throw new ConfigError('--port', 'cannot be combined with --stdio');
        // stdout carries the protocol: diagnostics go to stderr only.
        await runMcpStdio({ apiKey: config.ENGINE_API_KEY, engineUrl, concurrency });
        return;
      }
      const port = opts.port ?? config.PORT;
      const log = createLogger({ level: config.LOG_LEVEL });
      const server = await startMcpHttpServer({ port, host: opts.host, engineUrl, concurrency });
      log.info({ url: server.url, engine: engineUrl }, 'MCP server listening');
      await untilSignal(() => server.close());
    });
}
