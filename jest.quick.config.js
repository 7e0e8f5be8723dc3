/**
 * `npm run test:quick`: the in-process suites only (no spawned CLI or workers, no Redis Cluster or
 * Sentinel, no crash/kill, no browser), the inner loop while working. `npm test` still runs everything.
 */
const base = require('./jest.config');
const { notQuickPatterns } = require('./test/setup/suite-groups');

module.exports = { ...base, testPathIgnorePatterns: [...base.testPathIgnorePatterns, ...notQuickPatterns] };
