/**
 * Orders the suites for parallel workers: jest's own order (failed first, then slowest first by the
 * last run's durations), with the `machine` suites
 * (test/setup/suite-groups.js) spread over it instead of bunched: they run one at a time under the
 * machine lock, so a worker given one while another holds the lock only waits. The first one starts
 * at once: their chain is the longest serial part of the run.
 *
 * A fresh clone has no durations of its own (jest keeps them in its cache, per checkout path): the
 * durations recorded in suite-durations.json stand in (`npm run test:durations` records them anew).
 * Without them jest puts the largest files first, and the platforms' acceptance suites, small files
 * that run 25,000-contact syncs, all started last and together, starving each other past their bounds.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { relative } = require('node:path');
const { groupOf } = require('./suite-groups');
const recorded = require('./suite-durations.json');

class SpreadMachineSuites extends Sequencer {
  /** The suite's duration in ms: this checkout's last run's, or the recorded one. */
  time(test) {
    const seconds = recorded[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    return super.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
  }

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
