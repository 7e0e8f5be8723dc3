/**
 * Runs every workspace's tests from source, no build needed: workspace imports are mapped to their
 * src/ through the root tsconfig's `paths`, the one list of packages.
 */
const ts = require('typescript');
const { pathsToModuleNameMapper } = require('ts-jest');

const { config } = ts.readConfigFile(require.resolve('./tsconfig.json'), ts.sys.readFile);

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  testMatch: ['**/?(*.)test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  transform: {
    // Type checking is `npm run typecheck`'s job; jest only transpiles, which keeps it fast.
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: { isolatedModules: true, module: 'commonjs', target: 'es2022', esModuleInterop: true, resolveJsonModule: true } }],
  },
  moduleNameMapper: pathsToModuleNameMapper(config.compilerOptions.paths, { prefix: '<rootDir>/' }),
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
  testTimeout: 30000,
  // On a 2-core machine jest runs every file in one process (maxWorkers 1). After the Redis Cluster and
  // Sentinel suites kill their nodes, something (not found yet; --detectOpenHandles names nothing) keeps
  // that process alive once every test has passed, so CI would hang: exit when the run is done.
  forceExit: true,
};
