import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Tests that build the packages' dist/ folders (tsc -b, npm run build) take this lock first: two jest
 * workers writing the same dist/ and .tsbuildinfo files at once can read each other's half-written
 * declarations. The lock is a folder (mkdir is atomic) holding the owner's pid; a dead owner's lock is
 * taken over.
 */
const LOCK = join(__dirname, '..', '..', 'test-output', 'build.lock');
const pause = new Int32Array(new SharedArrayBuffer(4));

function ownerAlive(): boolean {
  try {
    process.kill(Number(readFileSync(join(LOCK, 'pid'), 'utf8')), 0);
    return true;
  } catch {
    return false;
  }
}

export function withBuildLock<T>(build: () => T, timeoutMs = 300_000): T {
  const until = Date.now() + timeoutMs;
  mkdirSync(join(LOCK, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (!ownerAlive()) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > until) throw new Error(`another test held ${LOCK} for ${timeoutMs / 1000} s`);
      else Atomics.wait(pause, 0, 0, 250); // the other build is running: look again shortly
    }
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    return build();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
