/**
 * The CPU time each suite's jest worker spent on it: loading its modules (the test file and everything
 * it imports, transformed and compiled anew for every suite) and running its tests. Wall time says which
 * suites are slow; on this 2-core machine CPU says which ones make the others slow. Processes a suite
 * spawns are not counted.
 */
const { appendFileSync, readFileSync } = require('node:fs');

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
      const file = process.env[SUITE_CPU_FILE];
      if (file) appendFileSync(file, `${JSON.stringify({ testPath, cpuMs: ms(process.cpuUsage(start)), loadMs: loadMs ?? null })}\n`);
    },
  };
}

/** This run's notes: `{ testPath, cpuMs, loadMs }` per suite. */
function suiteCpuNotes() {
  let text = '';
  try {
    text = readFileSync(process.env[SUITE_CPU_FILE] ?? '', 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

module.exports = { SUITE_CPU_FILE, suiteCpuMeter, suiteCpuNotes };
