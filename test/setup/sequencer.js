/**
 * Orders the suites for parallel workers: jest's own order (failed first, then slowest first by the
 * last run's durations), with the suites of a lane (test/setup/suite-groups.js: the `machine` suites,
 * one at a time, and the platforms' acceptance suites, two at a time) spread over it instead of
 * bunched, the lanes taken in turn: a worker given one while its lane is full only waits. The first of
 * each starts at once: their chains are the longest serial parts of the run.
 *
 * A fresh clone has no durations of its own (jest keeps them in its cache, per checkout path): the
 * durations recorded in suite-durations.json stand in (`npm run test:durations` records them anew).
 * Without them jest puts the largest files first, and the platforms' acceptance suites, small files
 * that run 25,000-contact syncs, all started last and together, starving each other past their bounds.
 */
const { default: Sequencer } = require('@jest/test-sequencer');
const { relative } = require('node:path');
const { laneOf, LANE_SLOTS } = require('./suite-groups');
const recorded = require('./suite-durations.json');

class SpreadLanedSuites extends Sequencer {
  constructor(options) {
    super(options);
    this.workers = Number(options?.globalConfig?.maxWorkers) || 4;
  }

  /** The suite's duration in ms: this checkout's last run's, or the recorded one. */
  time(test) {
    const seconds = recorded[relative(test.context.config.rootDir, test.path).split('\\').join('/')];
    return super.time(test) ?? (seconds === undefined ? undefined : seconds * 1000);
  }

  /**
   * jest's order, with each lane's suites placed where a slot of their lane is expected to be free: the
   * run is played through on the durations (each next suite goes to the worker free first), and a lane's
   * next suite is taken as soon as one of its slots is, so a lane's chain starts at once and goes on
   * without a worker waiting for it. A suite with no duration counts as 5 s.
   */
  async sort(tests) {
    const ordered = await super.sort(tests);
    const others = [];
    const lanes = new Map();
    for (const test of ordered) {
      const lane = laneOf(relative(test.context.config.rootDir, test.path));
      if (!lane) others.push(test);
      else {
        if (!lanes.has(lane)) lanes.set(lane, { suites: [], slotsFreeAt: Array(LANE_SLOTS[lane]).fill(0) });
        lanes.get(lane).suites.push(test);
      }
    }
    if (lanes.size === 0) return ordered;
    const length = (test) => test.duration ?? 5_000;
    const workersFreeAt = Array(this.workers).fill(0);
    const result = [];
    while (result.length < ordered.length) {
      const now = Math.min(...workersFreeAt);
      const worker = workersFreeAt.indexOf(now);
      // The lane whose slot is free now (or frees first, once the other suites are all placed).
      let lane;
      for (const candidate of lanes.values()) {
        if (candidate.suites.length === 0) continue;
        const freeAt = Math.min(...candidate.slotsFreeAt);
        if ((freeAt <= now || others.length === 0) && (!lane || freeAt < Math.min(...lane.slotsFreeAt))) lane = candidate;
      }
      let next;
      if (lane) {
        next = lane.suites.shift();
        const slot = lane.slotsFreeAt.indexOf(Math.min(...lane.slotsFreeAt));
        const start = Math.max(now, lane.slotsFreeAt[slot]);
        lane.slotsFreeAt[slot] = start + length(next);
        workersFreeAt[worker] = start + length(next);
      } else {
        next = others.shift();
        workersFreeAt[worker] = now + length(next);
      }
      result.push(next);
    }
    return result;
  }
}

module.exports = SpreadLanedSuites;
