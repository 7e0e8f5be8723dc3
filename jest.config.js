/**
 * Runs every workspace's tests from source, no build needed: workspace imports are mapped to their
 * src/ through the root tsconfig's `paths`, the one list of packages.
 */
const ts = require('typescript');
const { pathsToModuleNameMapper } = require('ts-jest');
const { WORKER_END_WAIT_MS } = require('./test/setup/worker-leftovers');

const { config } = ts.readConfigFile(require.resolve('./tsconfig.json'), ts.sys.readFile);

/** @type {import('jest').Config} */
module.exports = {
  roots: ['<rootDir>'],
  testMatch: ['**/?(*.)test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  transform: {
    // Type checking is `npm run typecheck`'s job; jest only transpiles, with swc: a fresh clone has no
    // transform cache, and TypeScript's own transpiler cost each worker ~0.8 s of CPU per suite there.
    '^.+\\.tsx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022' }, module: { type: 'commonjs' }, sourceMaps: 'inline' }],
  },
  moduleNameMapper: pathsToModuleNameMapper(config.compilerOptions.paths, { prefix: '<rootDir>/' }),
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // Node's environment, plus the machine lock of the suites that need the machine to themselves and a
  // failure for a suite that leaves a handle open (test/setup/environment.js).
  testEnvironment: '<rootDir>/test/setup/environment.js',
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
  // A liveness bound, not a timing: a test waits for conditions, and on this 2-core machine with a core
  // kept busy (issue 30's flake budget) 4 workers made 2,500-contact tests take past 30 s.
  testTimeout: 90000,
  // Several workers even on 2 cores: most suites wait on Redis, child processes and BullMQ timers, not
  // on the CPU. Each suite owns its Redis prefix, ports and temp dirs, so any two can run at once.
  maxWorkers: process.env.VHTEST_WORKERS ?? 4,
  // How long jest waits for a worker process to be gone once asked to end, before it kills it ("failed to
  // exit gracefully"); jest's default is 500 ms. On this machine with a core busy, workers ran their 'exit'
  // 1 ms after being asked and their processes were still alive 500 ms later (the teardown of a process of
  // several hundred MB). A worker still there then fails the run (test/setup/worker-leftovers.js).
  workerGracefulExitTimeout: WORKER_END_WAIT_MS,
};
