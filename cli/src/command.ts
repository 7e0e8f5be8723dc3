import type { Command } from 'commander';

/**
 * Each file in `commands/` exports `register`, which adds its sub-command(s) to the program; main.ts
 * lists them (COMMANDS). A platform module adds its commands by describing them (core CliCommand).
 */
export type RegisterCommand = (program: Command) => void;

/** Exit codes: 0 done, 1 the work failed, 2 bad arguments or configuration. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
