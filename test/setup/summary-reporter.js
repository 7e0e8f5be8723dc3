/**
 * Prints the ten slowest suites of the run, the ten that took the most CPU (and how much of the run's
 * CPU went to loading modules), then one plain closing line,
 * `tests: N passed, N failed, N skipped`, that CI tooling reads in any language (jest's own summary is
 * not in that form).
 */
const { writeFileSync } = require('node:fs');
const { relative } = require('node:path');
const { lockWaits } = require('./machine-lock');
const { suiteCpuNotes } = require('./suite-cpu');
const { isBundle } = require('./quick-bundles');

const SLOWEST = 10;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    // A suite's time from its start to its end, less what it waited for the machine lock.
    const waits = lockWaits();
    const path = (file) => relative(this.rootDir, file).split('\\').join('/');
    // A quick-loop bundle's suites are timed one by one (bundled-suite.js), not as their bundle.
    const bundled = suiteCpuNotes().filter((note) => note.bundled).map((note) => ({ path: path(note.testPath), seconds: note.wallMs / 1000 }));
    const all = results.testResults
      .filter((r) => r.perfStats && r.perfStats.end > r.perfStats.start && !isBundle(path(r.testFilePath)))
      .map((r) => ({ path: path(r.testFilePath), seconds: (r.perfStats.end - r.perfStats.start - (waits.get(r.testFilePath) ?? 0)) / 1000 }))
      .concat(bundled)
      .sort((a, b) => b.seconds - a.seconds);
    const timed = all.slice(0, SLOWEST);
    // `npm run test:durations`: the fresh clone's stand-in for jest's cached durations (sequencer.js).
    const durationsFile = process.env.VHTEST_WRITE_DURATIONS;
    if (durationsFile && numFailedTests === 0) {
      const byPath = Object.fromEntries(all.map((t) => [t.path, Math.round(t.seconds * 10) / 10]).sort(([a], [b]) => (a < b ? -1 : 1)));
      writeFileSync(durationsFile, `${JSON.stringify(byPath, null, 1)}\n`);
    }
    // VHTEST_WRITE_SUITE_CPU: each suite's CPU and loading time, as JSON (what the CPU summary is made of).
    if (process.env.VHTEST_WRITE_SUITE_CPU) writeFileSync(process.env.VHTEST_WRITE_SUITE_CPU, JSON.stringify(suiteCpuNotes()));
    if (timed.length > 1) {
      process.stdout.write(`\nslowest suites:\n${timed.map((t) => `  ${t.seconds.toFixed(1).padStart(6)} s  ${t.path}`).join('\n')}\n`);
      process.stdout.write(this.cpuSummary());
    }
    // A suite that failed outside its tests (it did not load, or left a handle open) counts as one failure.
    const brokenSuites = results.testResults.filter((r) => (r.testExecError || r.failureMessage) && r.numFailingTests === 0).length;
    process.stdout.write(`\ntests: ${numPassedTests} passed, ${numFailedTests + brokenSuites} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }

  /** The suites that took the most CPU in their jest workers, and the run's total split into loading and running. */
  cpuSummary() {
    const notes = suiteCpuNotes().sort((a, b) => b.cpuMs - a.cpuMs);
    if (notes.length < 2) return '';
    const seconds = (msTotal) => (msTotal / 1000).toFixed(1);
    const total = notes.reduce((sum, note) => sum + note.cpuMs, 0);
    const loading = notes.reduce((sum, note) => sum + (note.loadMs ?? 0), 0);
    const children = notes.reduce((sum, note) => sum + (note.childMs ?? 0), 0);
    const lines = notes.slice(0, SLOWEST).map((note) => `  ${seconds(note.cpuMs).padStart(6)} s  ${relative(this.rootDir, note.testPath).split('\\').join('/')}`);
    return `\nmost CPU (in jest's workers; ${seconds(total)} s in all, ${seconds(loading)} s of it loading modules; ${seconds(children)} s more in the processes suites spawned):\n${lines.join('\n')}\n`;
  }
}

module.exports = SummaryReporter;
