/**
 * The run history's filters (`GET /api/runs?q=&source=&status=`, `verify-hub runs list --search`): the
 * run store on Redis with 1,000 runs, searched for a name only the oldest have, so a filtered list reads
 * every record of its 1,000-run window. Printed against two baselines measured in the same run:
 *
 * - the unfiltered list the runs page polls (`limit=50`: 50 records);
 * - the same 1,000-run search read one record per round trip (how `list` read records before the
 *   history filters: `get(id)` in a loop), to show what the pipelined batches of 100 buy.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { runName } from '@verify-hub/core';
import { Keys, RunStore, runMatches, type RunRecord } from '@verify-hub/sync-jobs';
import { ensureRedis } from '../test/setup/redis';

const RUNS = 1000;
const ROUNDS = 20;

async function perCall(rounds: number, work: () => Promise<unknown>): Promise<number> {
  await work(); // warm-up
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await work();
  return (performance.now() - started) / rounds;
}

async function main(): Promise<void> {
  const server = await ensureRedis();
  const redis = new Redis(server.url);
  const keys = new Keys(`bench-history-${randomUUID().slice(0, 8)}`);
  const store = new RunStore(redis, keys);
  try {
    // The oldest 10 are named "Archive ..."; the rest are newer file and platform runs.
    for (let i = 0; i < RUNS; i++) {
      const name = i < 10 ? `Archive ${i}.csv` : i % 2 ? `Newsletter ${i}` : `Leads ${i}.csv`;
      await store.create({ platform: i % 2 ? 'mailchimp' : 'file', scope: 'all', name });
    }
    const search = { search: 'archive', limit: 50 };
    const found = await store.list(search);
    const oneByOne = async (): Promise<RunRecord[]> => {
      const ids = await redis.zrevrange(keys.runIndex(), 0, RUNS - 1);
      const runs: RunRecord[] = [];
      for (const id of ids) {
        const run = await store.get(id);
        if (run && runMatches(run, search)) runs.push(run);
      }
      return runs;
    };
    if ((await oneByOne()).length !== found.length || found.some((run) => !runName(run).startsWith('Archive'))) throw new Error('the two readings disagree');

    const unfiltered = await perCall(ROUNDS, () => store.list({ limit: 50 }));
    const batched = await perCall(ROUNDS, () => store.list(search));
    const sequential = await perCall(ROUNDS, oneByOne);
    console.log(`run history: ${RUNS} runs in Redis, a search matching the ${found.length} oldest (reads all ${RUNS}), ${ROUNDS} rounds each`);
    console.log(`   baseline, unfiltered list of 50:          ${unfiltered.toFixed(2)} ms`);
    console.log(`   search, pipelined batches of 100:         ${batched.toFixed(2)} ms  (${(batched / unfiltered).toFixed(2)}x the unfiltered list)`);
    console.log(`   search, one record per round trip:        ${sequential.toFixed(2)} ms  (${(sequential / batched).toFixed(2)}x the pipelined search)`);
  } finally {
    const stale = await redis.keys(`${keys.prefix}:*`);
    for (let i = 0; i < stale.length; i += 500) await redis.del(...stale.slice(i, i + 500));
    redis.disconnect();
    server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
