/*
 * Every shape the dashboard reads from core: its tsconfig maps `@verify-hub/core` to this file alone.
 * Each file here imports nothing but the others, so the browser build sees no Node code.
 */
export * from './platform-wire';
export * from './result-wire';
export * from './run-wire';
export * from './accuracy-wire';
