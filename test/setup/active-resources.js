/**
 * What keeps this process's event loop alive, counted by type (node's process.getActiveResourcesInfo()),
 * and what is open beyond an earlier count: the suites' check (environment.js) and the workers' end
 * (worker-leftovers.js) read it the same way.
 */
const { setTimeout: sleep } = require('node:timers/promises');

function resourceCounts() {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

function extraResources(before) {
  const extra = [];
  for (const [type, n] of resourceCounts()) {
    const more = n - (before.get(type) ?? 0);
    // FSReqCallback: a file operation in flight (jest's own cache writes); it ends by itself.
    if (more > 0 && type !== 'FSReqCallback') extra.push(`${type} x${more}`);
  }
  return extra;
}

/** How long a suite's handles may take to close after its last hook (a killed child's exit, a socket's FIN, slower on a loaded machine); a leak stays open for good. */
const HANDLE_GRACE_MS = Number(process.env.VHTEST_HANDLE_GRACE_MS ?? 15000);

/** What `open()` lists once the grace period let closing handles go (empty at once when nothing is). */
async function settled(open) {
  const until = Date.now() + HANDLE_GRACE_MS;
  let extra = open();
  while (extra.length > 0 && Date.now() < until) {
    await sleep(50, undefined, { ref: false });
    extra = open();
  }
  return extra;
}

module.exports = { resourceCounts, extraResources, settled };
