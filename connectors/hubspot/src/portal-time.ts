/**
 * HubSpot resets a portal's daily API limit at midnight in the portal's time zone (the account's
 * time-zone setting, read at connect time from /account-info/v3/details).
 */

function offsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
  }).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** Whether `timeZone` is an IANA name this runtime knows. */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The next local midnight in `timeZone` after `now`, as epoch milliseconds. Unknown zones fall back to UTC. */
export function nextMidnight(timeZone: string | undefined, now = Date.now()): number {
  const zone = timeZone && isKnownTimeZone(timeZone) ? timeZone : 'UTC';
  const local = new Date(now + offsetMs(zone, now));
  const localMidnight = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 1);
  // Convert local wall time back to an instant; twice, in case the offset changes (DST) in between.
  let guess = localMidnight - offsetMs(zone, now);
  guess = localMidnight - offsetMs(zone, guess);
  return guess > now ? guess : guess + 24 * 3600_000;
}
