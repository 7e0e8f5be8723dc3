import { rmSync } from 'node:fs';
const { leftoverReport, workerExitTimes } = require('./worker-leftovers') as { leftoverReport: () => string[]; workerExitTimes: () => string };

export default async function globalTeardown(): Promise<void> {
  const run = globalThis as { __verifyHubStopRedis?: () => void; __verifyHubRunDir?: string };
  // Read before the run's folder goes; jest has waited for (or killed) every worker by now.
  const leftovers = leftoverReport();
  const exitTimes = workerExitTimes();
  if (exitTimes) process.stderr.write(`\n${exitTimes}\n`);
  run.__verifyHubStopRedis?.();
  if (run.__verifyHubRunDir) rmSync(run.__verifyHubRunDir, { recursive: true, force: true });
  if (leftovers.length > 0) {
    process.exitCode = 1;
    process.stderr.write(`\n${leftovers.join('\n')}\n(close what the suite opens, including what its clean-up starts: test/setup/worker-leftovers.js)\n`);
  }
}
