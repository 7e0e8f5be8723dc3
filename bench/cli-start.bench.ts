/**
 * CLI start-up bench (issue 19): `node cli/bin/verify-hub.js --help` from the built output (dist/,
 * compiled JavaScript, what the published package runs) against `node -e 0` (Node's own start), and
 * the source mode (VERIFY_HUB_FROM_SOURCE=1: ts-node, for development) for comparison. Builds first
 * (`npm run build`) unless VERIFY_HUB_BENCH_NO_BUILD=1. Prints medians and ratios; fails on no number.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'cli', 'bin', 'verify-hub.js');
const RUNS = Number(process.env.CLI_START_BENCH_RUNS ?? 10);
// The bench itself runs under ts-node: its children must not inherit that.
const env = { ...process.env };
delete env.TS_NODE_PROJECT;
delete env.VERIFY_HUB_FROM_SOURCE;

function median(args: string[], extraEnv: Record<string, string> = {}, runs = RUNS): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...env, ...extraEnv }, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main(): void {
  if (process.env.VERIFY_HUB_BENCH_NO_BUILD !== '1') {
    console.log('building (npm run build)...');
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit', env });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  median(['-e', '0'], {}, 2); // warm the file cache
  median([BIN, '--help'], {}, 2);
  const node = median(['-e', '0']);
  const built = median([BIN, '--help']);
  const source = median([BIN, '--help'], { VERIFY_HUB_FROM_SOURCE: '1' }, Math.min(RUNS, 3));
  console.log(`median of ${RUNS} starts:`);
  console.log(`  node -e 0                                 ${node.toFixed(0)} ms`);
  console.log(`  verify-hub --help (built, dist/)          ${built.toFixed(0)} ms  (${(built / node).toFixed(1)}x node -e 0)`);
  console.log(`  verify-hub --help (source mode, ts-node)  ${source.toFixed(0)} ms  (${(source / node).toFixed(1)}x node -e 0)`);
}

main();
