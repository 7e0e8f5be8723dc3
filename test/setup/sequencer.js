/**
 * Orders the suites for parallel workers: jest's own order (failed first, then slowest first by the
 * last run's durations, or largest file first on a fresh checkout), with the `machine` suites
 * (test/setup/suite-groups.js) spread over it instead of bunched: they run one at a time under the
 * machine lock, so a worker given one while another holds the lock only waits. The first one starts
 * at once: their chain is the longest serial part of the run.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { relative } = require('node:path');
const { groupOf } = require('./suite-groups');

class SpreadMachineSuites extends Sequencer {
  async sort(tests) {
    const ordered = await super.sort(tests);
    const machine = [];
    const others = [];
    for (const test of ordered) (groupOf(relative(test.context.config.rootDir, test.path)) === 'machine' ? machine : others).push(test);
    if (machine.length === 0) return ordered;
    const gap = Math.max(1, Math.floor(others.length / machine.length));
    const result = [];
    machine.forEach((test, i) => result.push(test, ...others.slice(i * gap, (i + 1) * gap)));
    result.push(...others.slice(machine.length * gap));
    return result;
  }
}

module.exports = SpreadMachineSuites;
