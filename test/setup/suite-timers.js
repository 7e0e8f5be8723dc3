/**
 * The timers a suite's own code starts, known by identity. The open-handle check (environment.js) counts
 * what keeps the event loop alive by type, and a `Timeout` a suite leaves running can be offset there by
 * one of jest's own timers that ended meanwhile: a suite leaving a `setInterval` passed that check. jest
 * gives each suite a global of its own, and the suite's modules (its dependencies' too) take their
 * `setTimeout` and `setInterval` from it, so wrapping those two sees every timer they start. Timers
 * that node's core starts for a socket or a server are not seen here; the handle they belong to is.
 */

/** Past this many timers noted, the ones already ended are dropped (a sync starts thousands). */
const PRUNE_AT = 5000;

/** A `Timeout` that still keeps the event loop alive: neither run (setTimeout) nor cleared, and not unref'd. */
const keepsLoopAlive = (timer) => !timer._destroyed && timer.hasRef();

/** Wraps `global`'s setTimeout and setInterval; `running()` lists the timers started since that still keep the loop alive. */
function trackSuiteTimers(global) {
  const started = new Map(); // timer -> 'setTimeout' | 'setInterval'
  let pruneAt = PRUNE_AT;
  const forgetEnded = () => {
    for (const [timer] of started) if (timer._destroyed) started.delete(timer);
  };
  for (const name of ['setTimeout', 'setInterval']) {
    const original = global[name];
    const wrapped = function (...args) {
      const timer = original.apply(this, args);
      // Node's own functions answer a Timeout; the check is only a guard, no timer to note without one.
      if (timer && typeof timer.hasRef === 'function') {
        if (started.size >= pruneAt) {
          forgetEnded();
          // Doubled past what is still running, so many live timers do not make every call a scan.
          pruneAt = Math.max(PRUNE_AT, 2 * started.size);
        }
        started.set(timer, name);
      }
      return timer;
    };
    // Keeps what node hangs on them (util.promisify's custom form, `name`, `length`).
    Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
    global[name] = wrapped;
  }
  return {
    /** e.g. ['setInterval x1'] for what the suite started and left running. */
    running() {
      forgetEnded(); // an unref'd timer is kept: it may be ref'd again
      const counts = new Map();
      for (const [timer, name] of started) if (keepsLoopAlive(timer)) counts.set(name, (counts.get(name) ?? 0) + 1);
      return [...counts].map(([name, n]) => `${name} x${n}`);
    },
  };
}

module.exports = { trackSuiteTimers };
