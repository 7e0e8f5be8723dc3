import { Command, CommanderError } from 'commander';
import { join } from 'node:path';
import { VerifyHubError } from '@verify-hub/core';
import { EXIT, type RegisterCommand } from './command';
import * as accuracy from './commands/accuracy';
import * as clean from './commands/clean';
import * as disconnect from './commands/disconnect';
import * as engine from './commands/engine';
import * as mcp from './commands/mcp';
import * as runs from './commands/runs';
import * as secretKey from './commands/secret-key';
import * as serve from './commands/serve';
import * as sessions from './commands/sessions';
import * as sync from './commands/sync';
import * as verify from './commands/verify';
import * as worker from './commands/worker';

/** The commands of verify-hub, in help order; a platform's own come from its module (platforms.ts). */
const COMMANDS: { register: RegisterCommand }[] = [accuracy, clean, disconnect, engine, mcp, runs, secretKey, serve, sessions, sync, verify, worker];

/** The CLI package's version (package.json is one folder up from both src/ and dist/). */
export function cliVersion(): string {
  return (require(join(__dirname, '..', 'package.json')) as { version: string }).version;
}

/**
 * Whether the platform modules' commands are needed for this command line: not for a built-in command,
 * whose start then stays quick (the modules load the platforms' SDKs and the pipeline: about 0.45 s).
 */
function needsPlatformCommands(program: Command, argv: readonly string[]): boolean {
  const first = argv.slice(2).find((arg) => !arg.startsWith('-'));
  return first === undefined || !program.commands.some((command) => command.name() === first);
}

export function buildProgram(argv: readonly string[] = process.argv): Command {
  const program = new Command('verify-hub')
    .description('Verify the email addresses of your contact lists: files, HubSpot, Mailchimp')
    .version(cliVersion(), '-V, --version', 'print the version of verify-hub')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  for (const command of COMMANDS) command.register(program);
  if (needsPlatformCommands(program, argv)) {
    const { registeredPlatforms } = require('./platforms') as typeof import('./platforms');
    const { registerPlatformCommands } = require('./platform-commands') as typeof import('./platform-commands');
    for (const module of registeredPlatforms()) registerPlatformCommands(program, module);
  }
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram(argv);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed the message; help and version are not failures.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    if (error instanceof VerifyHubError) {
      console.error(`verify-hub: ${error.message}`);
      process.exitCode = error.code === 'INVALID_CONFIG' || error.code === 'INVALID_INPUT' ? EXIT.usage : EXIT.failed;
      return;
    }
    console.error(`verify-hub: ${(error as Error).message ?? String(error)}`);
    process.exitCode = EXIT.failed;
  }
}
