/**
 * The environment's check finds a timer a suite leaves running by identity (test/setup/suite-timers.js):
 * counted by type, a leaked `Timeout` could be offset by one of jest's own timers that ended meanwhile.
 */
import { promisify } from 'node:util';
import { setTimeout as nodeSetTimeout, setInterval as nodeSetInterval } from 'node:timers';
import { until } from '../setup/until';
const { trackSuiteTimers } = require('../setup/suite-timers') as { trackSuiteTimers: (global: object) => { running(): string[] } };

type Timers = { setTimeout: typeof nodeSetTimeout; setInterval: typeof nodeSetInterval };

describe('the timers a suite starts', () => {
  it('lists an interval or a timeout still running, and nothing once each is cleared, run or unref\'d', async () => {
    const sandbox: Timers = { setTimeout: nodeSetTimeout, setInterval: nodeSetInterval };
    const timers = trackSuiteTimers(sandbox);
    expect(timers.running()).toEqual([]);
    const interval = sandbox.setInterval(() => undefined, 60_000);
    const long = sandbox.setTimeout(() => undefined, 60_000);
    let fired = false;
    sandbox.setTimeout(() => (fired = true), 1);
    const unrefd = sandbox.setInterval(() => undefined, 60_000).unref();
    try {
      expect(timers.running()).toEqual(['setInterval x1', 'setTimeout x2']);
      await until(() => fired);
      expect(timers.running()).toEqual(['setInterval x1', 'setTimeout x1']);
      clearInterval(interval);
      expect(timers.running()).toEqual(['setTimeout x1']);
      clearTimeout(long);
      expect(timers.running()).toEqual([]);
    } finally {
      clearInterval(interval);
      clearTimeout(long);
      clearInterval(unrefd);
    }
  });

  it('leaves the functions as node made them: promisify, name and a timer that runs its callback', async () => {
    const sandbox: Timers = { setTimeout: nodeSetTimeout, setInterval: nodeSetInterval };
    trackSuiteTimers(sandbox);
    expect(sandbox.setTimeout).not.toBe(nodeSetTimeout);
    expect(sandbox.setTimeout.name).toBe('setTimeout');
    await expect(promisify(sandbox.setTimeout)(1, 'value')).resolves.toBe('value');
    await new Promise<void>((resolve) => sandbox.setTimeout(resolve, 1));
  });

  it('the environment tracks this suite\'s own global: its setTimeout and setInterval are the wrapped ones', () => {
    // So the check (environment.js) would fail this suite had it left an interval running.
    expect([globalThis.setTimeout, globalThis.setInterval]).not.toContain(nodeSetTimeout);
    expect(globalThis.setInterval).not.toBe(nodeSetInterval);
    expect(globalThis.setInterval.name).toBe('setInterval');
  });
});
