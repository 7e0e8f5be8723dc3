/**
 * The in-process run on its own entry point (`@verify-hub/sync-jobs/in-process`): `verify-hub clean`
 * loads this and not the package's index, which brings BullMQ and ioredis with it. They added about
 * 6 MB of live heap to every clean, and V8 lets the old generation grow to a multiple of it (issue 22).
 */
export { runInProcess, type InProcessRunOptions, type InProcessRunResult } from './in-process-executor';
export { estimateSource } from './estimate';
