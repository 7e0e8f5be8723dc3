/**
 * Lanes of slots per machine for the suites that must not run all at once (test/setup/suite-groups.js):
 * a slot is a directory made atomically in the temp dir, holding the holder's pid. A holder that died
 * without letting go (a killed jest worker) is noticed by its pid and its slot taken over. The
 * `machine` lane's one slot is the machine lock of the suites that need the machine to themselves.
 */
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { appendRunNote, readRunNotes } = require('./run-notes');

const LOCK_DIR = process.env.VHTEST_MACHINE_LOCK ?? join(tmpdir(), 'verify-hub-test-machine.lock');

/** The directory of a lane's slot: the machine lane's first is LOCK_DIR. */
const slotDir = (lane, slot) => (lane === 'machine' && slot === 0 ? LOCK_DIR : `${LOCK_DIR}-${lane}-${slot}`);

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function tryTake(dir) {
  try {
    mkdirSync(dir);
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    let holder;
    try {
      holder = Number(readFileSync(join(dir, 'pid'), 'utf8'));
    } catch {
      return false; // being taken or let go right now: look again shortly
    }
    if (holder === process.pid || alive(holder)) return false;
    rmSync(dir, { recursive: true, force: true });
    return tryTake(dir);
  }
  writeFileSync(join(dir, 'pid'), String(process.pid));
  return true;
}

/** Waits for a free slot of the lane; resolves to the function that lets it go. */
async function acquireSlot(lane = 'machine', slots = 1) {
  // A directory made but not yet holding a pid is someone taking it: look again until it holds one.
  let waited = 0;
  for (;;) {
    for (let slot = 0; slot < slots; slot++) {
      const dir = slotDir(lane, slot);
      if (tryTake(dir)) return () => rmSync(dir, { recursive: true, force: true });
    }
    await sleep(100);
    waited += 100;
    // A directory left without a pid file by a holder killed between mkdir and write: after 30 s it is stale.
    if (waited % 30_000 === 0) {
      for (let slot = 0; slot < slots; slot++) {
        try {
          readFileSync(join(slotDir(lane, slot), 'pid'));
        } catch {
          rmSync(slotDir(lane, slot), { recursive: true, force: true });
        }
      }
    }
  }
}

/**
 * Where this run notes how long each suite waited for the lock (set by the global set-up), so the
 * summary reporter gives suite times without the wait.
 */
const WAITS_FILE = 'VHTEST_LOCK_WAITS';

function noteLockWait(testPath, ms) {
  appendRunNote(WAITS_FILE, { testPath, ms });
}

/** Each suite's wait for the lock in this run, in ms, by path. */
function lockWaits() {
  return new Map(readRunNotes(WAITS_FILE).map(({ testPath, ms }) => [testPath, ms]));
}

module.exports = { acquireSlot, noteLockWait, lockWaits, WAITS_FILE, LOCK_DIR };
