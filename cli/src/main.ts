import { Command, CommanderError } from 'commander';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { VerifyHubError } from '@verify-hub/core';
import { EXIT, type RegisterCommand } from './command';

/** The CLI package's version (package.json is one folder up from both src/ and dist/). */
export function cliVersion(): string {
  return (require(join(__dirname, '..', 'package.json')) as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('verify-hub')
    .description('Verify the email addresses of your contact lists: files, HubSpot, Mailchimp')
    .version(cliVersion(), '-V, --version', 'print the version of verify-hub')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const dir = join(__dirname, 'commands');
  const files = readdirSync(dir)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.map'))
    .sort();
  for (const file of files) {
    const mod = require(join(dir, file)) as { register?: RegisterCommand };
    mod.register?.(program);
  }
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
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
