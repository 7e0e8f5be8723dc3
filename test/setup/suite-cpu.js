/**
 * The CPU time each suite's jest worker spent on it: loading its modules (the test file and everything
 * it imports, transformed and compiled anew for every suite) and running its tests. Wall time says which
 * suites are slow; on this 2-core machine CPU says which ones make the others slow. Processes a suite
 * spawns are not counted.
 */
const { appendRunNote, readRunNotes } = require('./run-notes');

const SUITE_CPU_FILE = 'VHTEST_SUITE_CPU';

const ms = ({ user, system }) => Math.round((user + system) / 1000);

/** Started in the environment's setup; `loaded()` when the tests start, `done()` at teardown. */
function suiteCpuMeter(testPath) {
  const start = process.cpuUsage();
  let loadMs;
  return {
    loaded() {
      loadMs ??= ms(process.cpuUsage(start));
    },
    done() {
      appendRunNote(SUITE_CPU_FILE, { testPath, cpuMs: ms(process.cpuUsage(start)), loadMs: loadMs ?? null });
    },
  };
}

/** This run's notes: `{ testPath, cpuMs, loadMs }` per suite. */
function suiteCpuNotes() {
  return readRunNotes(SUITE_CPU_FILE);
}

module.exports = { SUITE_CPU_FILE, suiteCpuMeter, suiteCpuNotes };
