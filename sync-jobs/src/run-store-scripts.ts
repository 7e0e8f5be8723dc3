/**
 * The Lua scripts of the run store (run-store.ts): each changes a run's keys in one atomic step.
 * Counters are `n:<name>` fields of the run hash.
 */

/**
 * Adds report rows with their breakdown delta (see run-breakdown.ts): ARGV from `i` holds `nPairs`
 * (field, delta) pairs for the breakdown hash, then `nFailures` failed rows (kept while the list
 * has room), then the rows. Shared by COUNT_PAGE and APPEND_REPORT.
 */
const ADD_ROWS = `
local function add_rows(report, breakdown, failures, i, nPairs, nFailures, keep)
  for _ = 1, nPairs do redis.call('HINCRBY', breakdown, ARGV[i], ARGV[i + 1]); i = i + 2 end
  local room = keep - redis.call('LLEN', failures)
  for _ = 1, nFailures do
    if room > 0 then redis.call('RPUSH', failures, ARGV[i]); room = room - 1 end
    i = i + 1
  end
  for j = i, #ARGV do redis.call('RPUSH', report, ARGV[j]) end
end`;

/**
 * Marks a page's chunk done and adds its counters, report rows and breakdown in one step, releasing
 * the page's credit reservation; a page already counted (a chunk delivered twice after a crash)
 * changes nothing. Returns 1 when counted, 0 when already done. ARGV: page, counter pairs, breakdown
 * pairs, failures, kept failures, then the lists.
 */
export const COUNT_PAGE = `${ADD_ROWS}
redis.call('HDEL', KEYS[6], ARGV[1])
local looked = redis.call('HGET', KEYS[7], ARGV[1])
if looked then
  redis.call('HDEL', KEYS[7], ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'looking', -tonumber(looked))
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
local counterPairs = tonumber(ARGV[2])
local i = 6
for _ = 1, counterPairs do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
add_rows(KEYS[3], KEYS[4], KEYS[5], i, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
redis.call('HINCRBY', KEYS[1], 'pagesDone', 1)
return 1`;

/**
 * How many addresses of a page not counted yet are verified (or found cached): kept per page, only ever
 * raised (a replayed attempt starts again from 0), and added to the run's `looking` field. Nothing for a
 * page already counted. KEYS: run hash, looking hash, pages done. ARGV: page, addresses.
 */
export const NOTE_LOOKED = `
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 1 then return 0 end
local before = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local now = tonumber(ARGV[2])
if now <= before then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], now)
redis.call('HINCRBY', KEYS[1], 'looking', now - before)
return 1`;

/** Report rows outside a page (re-checks), with their breakdown. ARGV: breakdown pairs, failures, kept failures, then the lists. */
export const APPEND_REPORT = `${ADD_ROWS}
add_rows(KEYS[1], KEYS[2], KEYS[3], 4, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
return 1`;

/**
 * Saves where paging got to, only if no other pager saved this page first (pages == ARGV[1]): two
 * pagers of one run (a pause and a quick resume) cannot both count a page; the one that loses stops.
 * ARGV: page, next page, '1' when the source ended, cursor, then counter pairs.
 */
export const SAVE_PAGE = `
if tonumber(redis.call('HGET', KEYS[1], 'pages') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'pages', ARGV[2])
if ARGV[3] == '1' then
  redis.call('HDEL', KEYS[1], 'cursor')
  redis.call('HSET', KEYS[1], 'pagingDone', '1')
else
  redis.call('HSET', KEYS[1], 'cursor', ARGV[4])
end
for i = 5, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;

/** Completes a running run once: paging done and every enqueued page counted. Returns 1 when it did. */
export const TRY_COMPLETE = `
local s = redis.call('HGET', KEYS[1], 'status')
if s ~= 'running' then return 0 end
if redis.call('HGET', KEYS[1], 'pagingDone') ~= '1' then return 0 end
local pages = tonumber(redis.call('HGET', KEYS[1], 'pages') or '0')
local done = tonumber(redis.call('HGET', KEYS[1], 'pagesDone') or '0')
if done < pages then return 0 end
redis.call('HSET', KEYS[1], 'status', 'completed', 'finishedAt', ARGV[1])
redis.call('HDEL', KEYS[1], 'statusReason', 'resumeAt')
return 1`;

/** The credits held in a reservations hash (values `<credits>|<token>`), all pages or all but ARGV[1]. */
const SUM_RESERVED = `
local function sum_reserved(key, except)
  local fields = redis.call('HGETALL', key)
  local total = 0
  for i = 1, #fields, 2 do
    if fields[i] ~= except then total = total + tonumber(string.match(fields[i + 1], '^(%d+)')) end
  end
  return total
end`;

/**
 * Reserves up to ARGV[2] credits for page ARGV[1] under the run's cap ARGV[3]: what the cap leaves
 * after the credits spent (`n:credits`) and those other pages hold. The page's own earlier
 * reservation (an attempt killed mid-way) is replaced, never added to. Returns {grant, held by others}.
 */
export const RESERVE_CREDITS = `${SUM_RESERVED}
local want = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local others = sum_reserved(KEYS[2], ARGV[1])
local used = tonumber(redis.call('HGET', KEYS[1], 'n:credits') or '0')
local grant = math.max(0, math.min(want, cap - used - others))
if grant > 0 then redis.call('HSET', KEYS[2], ARGV[1], grant .. '|' .. ARGV[4]) else redis.call('HDEL', KEYS[2], ARGV[1]) end
return {grant, others}`;

/** Credits spent and credits reserved now, read together: {spent, reserved}. */
export const CREDIT_STATE = `${SUM_RESERVED}
return {tonumber(redis.call('HGET', KEYS[1], 'n:credits') or '0'), sum_reserved(KEYS[2], '')}`;

/** Releases page ARGV[1]'s reservation only if it is still the one read (ARGV[2]): a new attempt's is kept. */
export const RELEASE_IF_SAME = `
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0`;

/** Changes a run's status only from one of the allowed states; returns 1 when it did. */
export const TRANSITION = `
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return -1 end
for i = 4, #ARGV do if s == ARGV[i] then
  redis.call('HSET', KEYS[1], 'status', ARGV[1])
  if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'statusReason') else redis.call('HSET', KEYS[1], 'statusReason', ARGV[2]) end
  redis.call('HDEL', KEYS[1], 'resumeAt')
  for field, value in pairs(cjson.decode(ARGV[3])) do redis.call('HSET', KEYS[1], field, value) end
  return 1
end end
return 0`;
