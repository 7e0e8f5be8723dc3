import { parseStoredVerification, type Verification, runScript } from '@verify-hub/core';
import type { Redis } from 'ioredis';

/** A run's answers hash (address -> the first result stored for it in the run) and how long it is kept. */
export interface RunAnswers {
  key: string;
  ttlMs: number;
}

/**
 * KEYS[1]: the run's answers hash. ARGV[1]: its TTL in ms, then address/value pairs. Each value is kept
 * unless the run already holds one for its address; per pair, '' when this value was kept, else the
 * value held. Sent again after a reconnect (the reply lost), a pair finds its own value: the same answer.
 */
const KEEP_FIRST_ANSWERS = `
local held = {}
for i = 2, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then held[#held + 1] = ''
  else held[#held + 1] = redis.call('HGET', KEYS[1], ARGV[i]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return held`;

/**
 * One result per address in a run: two chunks that buy the same address at once (two records sharing
 * it, on two workers) get answers timed apart (an engine without `checked_at` is timed on arrival), so
 * the first stored stands and the later one is replaced by it, before anything is cached or written.
 * Returns `results` in order, each the run's answer for its address.
 */
export async function keepFirstAnswers(redis: Redis, answers: RunAnswers, results: Verification[]): Promise<Verification[]> {
  if (results.length === 0) return results;
  const pairs = results.flatMap((v) => [v.normalized, JSON.stringify(v)]);
  const held = (await runScript(redis, KEEP_FIRST_ANSWERS, 1, answers.key, answers.ttlMs, ...pairs)) as string[];
  return results.map((v, i) => {
    const raw = held[i];
    if (!raw) return v;
    try {
      return parseStoredVerification(JSON.parse(raw)) ?? v;
    } catch {
      return v;
    }
  });
}
