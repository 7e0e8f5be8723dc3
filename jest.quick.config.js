/**
 * `npm run test:quick`: the in-process suites only (no spawned CLI or workers, no Redis Cluster or
 * Sentinel, no crash/kill, no browser), the inner loop while working. `npm test` still runs everything,
 * each suite a test file of its own.
 *
 * Here the suites run in bundles (test/setup/quick-bundles.js): jest loads the modules once per bundle
 * instead of once per suite, which was 69 of the loop's 183 CPU-seconds. Six workers on this 2-core
 * machine, two bundles each: the suites wait on Redis and their fakes much of the time, and a bundle's
 * suites run one after another. One suite alone: `npx jest test/<path>`.
 */
const base = require('./jest.config');
const { writeBundles } = require('./test/setup/quick-bundles');

const workers = Number(process.env.VHTEST_WORKERS ?? 6);
const { bundles, alone } = writeBundles(__dirname, workers * 2);

module.exports = {
  ...base,
  maxWorkers: workers,
  testMatch: [...bundles, ...alone].map((path) => `<rootDir>/${path}`),
  testPathIgnorePatterns: ['/node_modules/'],
};
