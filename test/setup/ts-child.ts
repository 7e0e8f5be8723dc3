import { join } from 'node:path';

/** Node's arguments before a TypeScript fixture's path, to run it in a spawned process (scripts/register-ts.js: swc, the root tsconfig's paths). */
export const TS_CHILD_ARGS = ['-r', join(__dirname, '..', '..', 'scripts', 'register-ts.js')];
