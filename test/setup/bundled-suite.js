/* global describe, it, beforeAll, afterAll, jest, setImmediate */
/**
 * One suite of a quick-loop bundle (quick-bundles.js): its file required inside a `describe` named by
 * its path, so its top-level hooks and tests are its own, between two hooks that do for it what jest's
 * per-file environment does for a file of its own (environment.js):
 *
 * - before it: what is open is noted (the previous suite's handles have closed: its closing hook waited
 *   for them, or a socket still closing would be counted by this suite's own checks);
 * - after it: it fails if it left a handle open or Node's HTTP client patched; `process.env`,
 *   `process.exitCode` and jest's spies are put back as it found them; its CPU, loading time and
 *   duration are noted for the summary (summary-reporter.js), under its own path.
 */
const { resourceCounts, extraResources, settled } = require('./active-resources');
const { httpClientAsFound } = require('./http-client-patches');
const { appendRunNote } = require('./run-notes');
const { SUITE_CPU_FILE } = require('./suite-cpu');

const cpuMs = ({ user, system }) => Math.round((user + system) / 1000);

/** `process.env` as found (the object and its contents: a suite may replace the object), and a way to put it back. */
function environmentAsFound() {
  const object = process.env;
  const contents = { ...object };
  const exitCode = process.exitCode;
  return () => {
    process.env = object;
    for (const name of Object.keys(object)) if (!(name in contents)) delete object[name];
    Object.assign(object, contents);
    process.exitCode = exitCode;
  };
}

/**
 * Called first in a bundle: what is open and how Node's HTTP client is before its suites are collected.
 * Once they are, anything more open means a suite opened it at its top level or in a `describe` body,
 * not in a hook: it would be counted against whichever suite runs first, so the bundle fails, asking
 * for it to move into a `beforeAll`.
 */
function collecting() {
  const resources = resourceCounts();
  const httpClient = httpClientAsFound();
  beforeAll(async () => {
    await new Promise((resolve) => setImmediate(resolve)); // a connection started on a later tick
    const patched = httpClient.putBack();
    // Timers are left out: modules start short ones as they load (the suites' closing checks still count them).
    const open = extraResources(resources).filter((entry) => !/^(Timeout|Immediate) /.test(entry));
    if (patched.length + open.length > 0) {
      throw new Error(`a suite of this bundle opened ${[...open, ...patched.map((name) => `a patch of ${name}`)].join(', ')} while jest collected its tests (at its top level or in a describe body): open it in a beforeAll, close it in an afterAll`);
    }
  });
}

function bundledSuite(path, file) {
  describe(path, () => {
    let found;
    const loadStart = process.cpuUsage();
    // The previous suite's closing hook waited for its handles to close, so what is open now is the baseline.
    beforeAll(() => {
      found = { resources: resourceCounts(), httpClient: httpClientAsFound(), putBackEnvironment: environmentAsFound(), cpu: process.cpuUsage(), wallStart: Date.now() };
    });
    try {
      require(file);
    } catch (error) {
      it('loads', () => {
        throw error;
      });
    }
    const loadMs = cpuMs(process.cpuUsage(loadStart));
    afterAll(async () => {
      const ran = { cpuMs: cpuMs(process.cpuUsage(found.cpu)), wallMs: Date.now() - found.wallStart };
      found.putBackEnvironment();
      jest.restoreAllMocks();
      const patched = found.httpClient.putBack();
      const open = await settled(() => extraResources(found.resources));
      appendRunNote(SUITE_CPU_FILE, { testPath: file, cpuMs: ran.cpuMs + loadMs, loadMs, childMs: null, wallMs: ran.wallMs, bundled: true });
      if (patched.length > 0) throw new Error(`${path} left Node's HTTP client patched (${patched.join(', ')}): undo it in its clean-up (nock.restore() in afterAll)`);
      if (open.length > 0) throw new Error(`${path} left handles open after its last hook (${open.join(', ')}): close every server, client, timer and child process it starts`);
    });
  });
}

module.exports = { bundledSuite, collecting };
