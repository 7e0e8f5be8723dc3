/**
 * The CPU time each suite's jest worker spent on it: loading its modules (the test file and everything
 * it imports, transformed and compiled anew for every suite) and running its tests. Wall time says which
 * suites are slow; on this 2-core machine CPU says which ones make the others slow. The processes a
 * suite spawns are counted apart (`childMs`), once they have ended and been reaped.
 */
const { readFileSync } = require('node:fs');
const { appendRunNote, readRunNotes } = require('./run-notes');

const SUITE_CPU_FILE = 'VHTEST_SUITE_CPU';

const ms = ({ user, system }) => Math.round((user + system) / 1000);

/**
 * The CPU of this process's ended children (and theirs, once reaped), in ms: cutime and cstime of
 * /proc/self/stat, in Linux's USER_HZ of 100 a second. null where there is no /proc.
 */
function childrenCpuMs() {
  try {
    // The fields after the process's name, which is in parentheses and may itself hold ') '.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

/** Started in the environment's setup; `loaded()` when the tests start, `done()` at teardown. */
function suiteCpuMeter(testPath) {
  const start = process.cpuUsage();
  const childrenAtStart = childrenCpuMs();
  let loadMs;
  return {
    loaded() {
      loadMs ??= ms(process.cpuUsage(start));
    },
    done() {
      const children = childrenCpuMs();
      const childMs = children === null || childrenAtStart === null ? null : children - childrenAtStart;
      appendRunNote(SUITE_CPU_FILE, { testPath, cpuMs: ms(process.cpuUsage(start)), loadMs: loadMs ?? null, childMs });
    },
  };
}

/** This run's notes: `{ testPath, cpuMs, loadMs, childMs }` per suite. */
function suiteCpuNotes() {
  return readRunNotes(SUITE_CPU_FILE);
}

module.exports = { SUITE_CPU_FILE, suiteCpuMeter, suiteCpuNotes };
