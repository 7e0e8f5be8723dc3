/**
 * What keeps this process's event loop alive, counted by type (node's process.getActiveResourcesInfo()),
 * and what is open beyond an earlier count: the suites' check (environment.js) and the workers' end
 * (worker-leftovers.js) read it the same way.
 */
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

module.exports = { resourceCounts, extraResources };
