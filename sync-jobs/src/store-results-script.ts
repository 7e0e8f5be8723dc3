import type { Redis } from 'ioredis';
import { isCollected, type Verification, runScript } from '@verify-hub/core';

/**
 * Counts one purchase into the run's set of purchases (1 when counted, 0 when it was already): `<flag>|<id>`,
 * the id being `<address>|<answer time>`. Flag `1`: an answer collected again under its Idempotency-Key
 * (core's `isCollected`): the same purchase as the first answer under that key, whose time may differ (an
 * engine without `checked_at`: the hub's clock), so it counts only when no purchase of its address is in the
 * set yet (its first worker was killed before storing it). Looking by address is a scan of the run's
 * purchases, made only for collected answers, which only a crash or a lost lock produces.
 */
export const COUNT_PURCHASE = `
local function count_purchase(purchases, flagged)
  local id = string.sub(flagged, 3)
  if string.sub(flagged, 1, 1) == '1' then
    local address = string.match(id, '^(.*)|[^|]*$')
    local pattern = string.gsub(address, '[%*%?%[%]\\\\]', '\\\\%0') .. '|*'
    local cursor = '0'
    repeat
      local page = redis.call('SSCAN', purchases, cursor, 'MATCH', pattern, 'COUNT', 1000)
      if #page[2] > 0 then return 0 end
      cursor = page[1]
    until cursor == '0'
  end
  return redis.call('SADD', purchases, id)
end`;

/** A purchase as COUNT_PURCHASE takes it. */
export function flaggedPurchase(v: Verification): string {
  return `${isCollected(v) ? 1 : 0}|${v.normalized}|${v.checkedAt}`;
}

/**
 * Stores cache entries and counts the billable purchases among them in one atomic script: what a
 * MULTI of SETs and an EVAL did, without building an ioredis Pipeline per result. A Pipeline copies
 * every script BullMQ defined on the shared connection into closures of its own: once per bought
 * address, that was the largest CPU cost of a file clean in the hub (a 50,000-row clean took about
 * half the time without it; its peak RSS did not change).
 *
 * KEYS: the n cache keys, then (when counting) the run's credits hash and its purchases set.
 * ARGV: n, the n values, the n TTLs in ms, then (when counting) the credits field and the purchase ids.
 */
const STORE_RESULTS = `${COUNT_PURCHASE}
local n = tonumber(ARGV[1])
for i = 1, n do redis.call('SET', KEYS[i], ARGV[1 + i], 'PX', ARGV[1 + n + i]) end
if #KEYS == n then return 0 end
local counted = 0
for i = 2 * n + 3, #ARGV do counted = counted + count_purchase(KEYS[n + 2], ARGV[i]) end
if counted > 0 then redis.call('HINCRBY', KEYS[n + 1], ARGV[2 * n + 2], counted) end
return counted`;

export interface StoredEntry {
  key: string;
  value: string;
  ttlMs: number;
}

export interface PurchaseCount {
  /** The run's hash holding the credits field, and the set of purchases already counted. */
  key: string;
  purchases: string;
  field: string;
  ids: string[];
}

/** One round trip, atomic (single Redis only: the keys span slots). */
export async function storeResults(redis: Redis, entries: StoredEntry[], count?: PurchaseCount): Promise<void> {
  const keys = entries.map((e) => e.key);
  const args: Array<string | number> = [entries.length, ...entries.map((e) => e.value), ...entries.map((e) => e.ttlMs)];
  if (count && count.ids.length > 0) {
    keys.push(count.key, count.purchases);
    args.push(count.field, ...count.ids);
  }
  if (keys.length === 0) return;
  await runScript(redis, STORE_RESULTS, keys.length, ...keys, ...args);
}
