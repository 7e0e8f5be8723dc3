/**
 * The suites' jest environment: Node's, plus two duties that keep parallel runs honest.
 *
 * 1. A suite of the `machine` group (test/setup/suite-groups.js: Redis Cluster, Sentinel, crash/kill,
 *    browser) waits for the machine lock before it starts, so two of them never run at once, in this
 *    run or in another checkout's run on the same machine; the other suites keep running beside it.
 *    The platforms' acceptance suites take one of two slots of their own lane the same way.
 * 2. A suite that leaves something keeping the event loop alive (a socket, a server, a timer, a child
 *    process) after its last hook fails, naming what it left: such a handle kept the single jest process
 *    of earlier runs from exiting (the reason for the `forceExit` this replaced). One that leaves Node's
 *    HTTP client patched (an interceptor not restored) fails too, and the client is put back as found.
 */
const { TestEnvironment } = require('jest-environment-node');
const { readFileSync } = require('node:fs');
const { relative } = require('node:path');
const { laneOf, LANE_SLOTS, knownOpenHandles } = require('./suite-groups');
const { acquireSlot, noteLockWait } = require('./machine-lock');
const { watchWorkerEnd, WORKER_END_WAIT_MS } = require('./worker-leftovers');
const { suiteCpuMeter } = require('./suite-cpu');
const { httpClientAsFound } = require('./http-client-patches');
const { resourceCounts, extraResources, settled } = require('./active-resources');
const { trackSuiteTimers } = require('./suite-timers');
const { isBundle } = require('./quick-bundles');

/** What is open beyond `before` once the grace period let closing handles go. */
const settledExtra = (before) => settled(() => extraResources(before));

/**
 * With VHTEST_HANDLE_TRACE=1, where each handle still open was made (async_hooks: slow, so only
 * while looking for one).
 */
function traceHandles() {
  if (process.env.VHTEST_HANDLE_TRACE !== '1') return undefined;
  const { createHook } = require('node:async_hooks');
  const live = new Map();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'PROMISE' || type === 'TickObject' || type === 'Microtask') return;
      live.set(id, { type, resource, stack: new Error().stack.split('\n').slice(2, 40).join('\n') });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return {
    report() {
      hook.disable();
      return [...live.values()]
        .filter(({ resource }) => (typeof resource.hasRef === 'function' ? resource.hasRef() : true))
        .map(({ type, stack }) => `${type}\n${stack}`);
    },
  };
}

/**
 * This worker's child processes (Linux: /proc; elsewhere none are known). A child a suite started and
 * left running (its test timed out before the clean-up) would outlive the worker holding the stream
 * jest reads its output from, and jest would wait for it forever: the suite's children are killed when
 * it ends.
 */
function childProcesses() {
  try {
    return readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * What this worker process held before its first suite, and the last suite it ran: a handle that a
 * suite's clean-up let open only after its check (a reconnect timer started once a server it used was
 * gone) is found when the next suite starts, and blamed on the suite that left it.
 */
let workerBaseline;
let previousSuite;

class VerifyHubEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.rootDir = config.globalConfig.rootDir;
  }

  async setup() {
    await super.setup();
    const lane = laneOf(relative(this.rootDir, this.testPath));
    if (lane) {
      const asked = Date.now();
      this.releaseLock = await acquireSlot(lane, LANE_SLOTS[lane]);
      noteLockWait(this.testPath, Date.now() - asked);
    }
    if (!workerBaseline) {
      workerBaseline = resourceCounts();
      watchWorkerEnd(() => workerBaseline, () => previousSuite);
    }
    this.leftByPrevious = previousSuite ? await settledExtra(workerBaseline) : [];
    this.leftBy = previousSuite;
    // Reported once: later suites are measured against what is open now.
    if (this.leftByPrevious.length > 0) workerBaseline = resourceCounts();
    previousSuite = relative(this.rootDir, this.testPath);
    this.resourcesBefore = resourceCounts();
    this.childrenBefore = new Set(childProcesses());
    this.trace = traceHandles();
    // A quick-loop bundle's suites note their CPU themselves (bundled-suite.js).
    this.cpu = isBundle(relative(this.rootDir, this.testPath)) ? undefined : suiteCpuMeter(this.testPath);
    this.httpClient = httpClientAsFound();
    this.timers = trackSuiteTimers(this.global);
  }

  async handleTestEvent(event, state) {
    if (event.name === 'run_start') this.cpu?.loaded();
    if (event.name !== 'run_finish') return;
    const patched = this.httpClient.putBack();
    if (patched.length > 0) {
      state.unhandledErrors.push(new Error(`this suite left Node's HTTP client patched (${patched.join(', ')}): undo it in its clean-up (nock.restore() in afterAll); put back as found for the suites after it`));
    }
    if (process.env.VHTEST_ALLOW_OPEN_HANDLES === '1') return;
    if (this.leftByPrevious.length > 0) {
      state.unhandledErrors.push(new Error(`${this.leftBy}, which ran before this suite in the same worker, left handles open after its check (${this.leftByPrevious.join(', ')})`));
    }
    const settling = Date.now();
    // By type, and the suite's own timers by identity (a count by type can hide a leaked one).
    const open = () => [...extraResources(this.resourcesBefore), ...this.timers.running().map((timer) => `${timer} started by the suite`)];
    const openAtEnd = open();
    const extra = await settled(open);
    const settleMs = Date.now() - settling;
    // Closed in the grace period, but later than jest waits for a worker to end after its last suite.
    if (extra.length === 0 && settleMs > WORKER_END_WAIT_MS) {
      console.warn(`${relative(this.rootDir, this.testPath)}: what it left open (${openAtEnd.join(', ')}) took ${settleMs} ms to close after its last hook; as a worker's last suite, it would hold the worker past the ${WORKER_END_WAIT_MS} ms its end may take`);
    }
    if (this.trace && extra.length > 0) console.error(`open handles of ${this.testPath}:\n${this.trace.report().join('\n\n')}`);
    const known = knownOpenHandles[relative(this.rootDir, this.testPath)];
    if (extra.length > 0 && known) {
      workerBaseline = resourceCounts();
      console.warn(`${relative(this.rootDir, this.testPath)} left handles open (${extra.join(', ')}): known, ${known} (test/setup/suite-groups.js)`);
    } else if (extra.length > 0) {
      workerBaseline = resourceCounts(); // reported here, not again by the next suite
      state.unhandledErrors.push(
        new Error(
          `this suite left handles open after its last hook (${extra.join(', ')}): close every server, client, timer and child process it starts ` +
            `(node's process.getActiveResourcesInfo(); VHTEST_ALLOW_OPEN_HANDLES=1 skips this check while you look for it)`,
        ),
      );
    }
  }

  async teardown() {
    this.cpu?.done();
    try {
      for (const pid of childProcesses()) {
        if (this.childrenBefore?.has(pid)) continue;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
      await super.teardown();
    } finally {
      this.releaseLock?.();
    }
  }
}

module.exports = VerifyHubEnvironment;
