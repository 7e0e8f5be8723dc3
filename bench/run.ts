/**
 * `npm run bench [name...]`: runs every bench/*.bench.ts (or the named ones), each in its own
 * process so memory figures do not mix. Benches print ratios against a baseline measured in the
 * same run; they are measurements, not tests, and never fail on a number.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_NODE_ARGS } from './node-args';

const only = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();

if (files.length === 0) {
  console.error(`no bench matches ${only.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const run = spawnSync(process.execPath, ['--expose-gc', ...BENCH_NODE_ARGS, join(__dirname, file)], { stdio: 'inherit', env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '..', 'tsconfig.json') } });
  if (run.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);

