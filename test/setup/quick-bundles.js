/**
 * `npm run test:quick` runs the in-process suites in bundles: one jest test file per bundle, which
 * requires several suites in turn, each inside a `describe` of its own path (bundled-suite.js).
 *
 * Why: jest loads every module again for each test file. The quick loop's 184 suites each loaded about
 * 900 modules (zod, bullmq, ioredis, core...), 69 of its 183 CPU-seconds on this 2-core machine; a
 * bundle loads them once for all its suites. `npm test` still runs every suite as a file of its own, so
 * a suite that only passes beside others (or only alone) is caught there.
 *
 * What a bundle shares, and what keeps its suites apart: modules are loaded once per bundle, so a
 * module's state (a registry, a cache) is one for its suites; each suite's own module-level variables
 * are its own (its file is a module of its own). Between suites, bundled-suite.js waits for the last
 * suite's handles to close (and fails it for any left open), and puts back `process.env` and Node's HTTP
 * client as the suite found them: what jest's per-file environment does for a file of its own.
 */
const { mkdirSync, readdirSync, readFileSync, writeFileSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');
const { groupOf, suitePaths } = require('./suite-groups');

/** Where the bundles are written (gitignored; made anew from the suites on every quick run). */
const BUNDLE_DIR = '.jest-quick';

/** The quick loop's own record of its suites' durations (test/setup/). */
const QUICK_DURATIONS = 'quick-durations.json';

/** A suite with no recorded duration counts as this many seconds. */
const UNKNOWN_SECONDS = 3;

/**
 * Suites that run as files of their own in the quick loop too: nock patches Node's HTTP client for the
 * whole process when it is imported, once per bundle, and the first suite's `nock.restore()` would
 * leave the next ones unpatched.
 */
const runsAlone = (source) => /from 'nock'|require\('nock'\)/.test(source);

/** The in-process suites under `test/`, as sorted paths relative to `rootDir`: the quick loop's. */
function inProcessSuites(rootDir) {
  return suitePaths(rootDir).filter((path) => groupOf(path) === 'in-process');
}

/** Whether a test file (its path relative to the root) is a bundle, whose suites are timed one by one. */
const isBundle = (relativePath) => relativePath.split('\\').join('/').startsWith(`${BUNDLE_DIR}/`);

/**
 * The suites cut into `count` bundles of about equal recorded duration, each a run of neighbours in path
 * order: a platform's suites load the same SDK and fakes, so keeping them together loads those once.
 */
function bundle(paths, seconds, count) {
  const length = (path) => seconds[path] ?? UNKNOWN_SECONDS;
  const total = paths.reduce((sum, path) => sum + length(path), 0);
  const bundles = [];
  let current = [];
  let filled = 0;
  for (const path of paths) {
    const target = (total * (bundles.length + 1)) / count;
    // Close the bundle where it comes nearer the target than taking this suite would.
    if (current.length > 0 && bundles.length < count - 1 && Math.abs(filled - target) < Math.abs(filled + length(path) - target)) {
      bundles.push(current);
      current = [];
    }
    current.push(path);
    filled += length(path);
  }
  if (current.length > 0) bundles.push(current);
  return bundles;
}

/** The text of a bundle's test file. */
function bundleSource(rootDir, paths) {
  const lines = paths.map((path) => `bundledSuite(${JSON.stringify(path)}, ${JSON.stringify(join(rootDir, path))});`);
  const setup = JSON.stringify(join(rootDir, 'test/setup/bundled-suite.js'));
  return [`// Made by test/setup/quick-bundles.js for \`npm run test:quick\`; not edited, not committed.`, `const { bundledSuite, collecting } = require(${setup});`, 'collecting();', ...lines, ''].join('\n');
}

/**
 * Writes the bundles of `rootDir`'s in-process suites to BUNDLE_DIR (a file is rewritten only when it
 * changes, so jest's cache of their durations holds); returns their paths and the suites that run alone.
 */
function writeBundles(rootDir, count) {
  // The suites' durations in the quick loop itself (`npm run test:quick:durations`), where they differ
  // from a full run's; suites missing there fall back to the full run's.
  const seconds = { ...readDurations(rootDir, 'suite-durations.json'), ...readDurations(rootDir, QUICK_DURATIONS) };
  const dir = join(rootDir, BUNDLE_DIR);
  const suites = inProcessSuites(rootDir);
  const alone = suites.filter((path) => runsAlone(readFileSync(join(rootDir, path), 'utf8')));
  const bundles = bundle(suites.filter((path) => !alone.includes(path)), seconds, count);
  mkdirSync(dir, { recursive: true });
  const files = bundles.map((paths, index) => {
    const file = join(dir, `bundle-${String(index + 1).padStart(2, '0')}.test.js`);
    const source = bundleSource(rootDir, paths);
    if (readOrNothing(file) !== source) writeFileSync(file, source);
    return file;
  });
  for (const name of readdirSync(dir)) if (/^bundle-\d+\.test\.js$/.test(name) && !files.includes(join(dir, name))) rmSync(join(dir, name), { force: true });
  return { bundles: files.map((file) => relative(rootDir, file)), alone };
}

function readDurations(rootDir, name) {
  const text = readOrNothing(join(rootDir, 'test/setup', name));
  return text === undefined ? {} : JSON.parse(text);
}

function readOrNothing(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

module.exports = { BUNDLE_DIR, bundle, inProcessSuites, isBundle, writeBundles };
