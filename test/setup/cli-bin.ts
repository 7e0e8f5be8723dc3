import { join } from 'node:path';

/** The checkout's bin: its dist/ when built, else the TypeScript sources through ts-node (slow to start). */
const CHECKOUT_BIN = join(__dirname, '..', '..', 'cli', 'bin', 'verify-hub.js');

/**
 * The `verify-hub` bin the suites spawn: the one build the global set-up made for this run
 * (VHTEST_CLI_BIN, test/setup/cli-build.ts), so no spawned process compiles the sources again; the
 * checkout's bin when a test asks for the sources (VERIFY_HUB_FROM_SOURCE=1 in the child's environment)
 * or when run outside jest's set-up.
 */
export function cliBin(childEnv: Record<string, string | undefined> = {}): string {
  if (childEnv.VERIFY_HUB_FROM_SOURCE === '1') return CHECKOUT_BIN;
  return process.env.VHTEST_CLI_BIN ?? CHECKOUT_BIN;
}
