import { CronExpressionParser } from 'cron-parser';

/** The five fields of a pattern, in order, with what each accepts, in words. */
const FIELDS = [
  { name: 'minute', accepts: 'must be 0-59, * or a step like */15' },
  { name: 'hour', accepts: 'must be 0-23, * or a step like */6' },
  { name: 'day of month', accepts: 'must be 1-31, * or L (the last day)' },
  { name: 'month', accepts: 'must be 1-12, * or a name like JAN' },
  { name: 'day of week', accepts: 'must be 0-7 (0 and 7 are Sunday), * or a name like MON' },
] as const;
const SECONDS = { name: 'second', accepts: 'must be 0-59, * or a step like */15' } as const;
const ORDINALS = ['1st', '2nd', '3rd', '4th', '5th', '6th'];
const EXAMPLE = '(for example 0 9 * * 1 is every Monday at 09:00)';

/**
 * Why cron-parser (the reader BullMQ uses) refuses a pattern, in plain words naming the field, never
 * the library's own message: each field is tried alone (the others `*`) to find the one at fault.
 * Also refuses what cron-parser would quietly read another way (fewer than five fields).
 */
export function cronProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/).filter(Boolean);
  if (fields.length === 0) return `it is empty ${EXAMPLE}`;
  if (fields.length < 5 || fields.length > 6) {
    return `it has ${fields.length} field${fields.length === 1 ? '' : 's'}; a pattern has 5: minute, hour, day of month, month, day of week ${EXAMPLE}`;
  }
  const meanings = fields.length === 6 ? [SECONDS, ...FIELDS] : [...FIELDS];
  for (let i = 0; i < fields.length; i++) {
    const alone = fields.map((field, j) => (j === i ? field : '*')).join(' ');
    if (!reads(alone)) return `the ${ORDINALS[i]} field (${meanings[i]!.name}) ${meanings[i]!.accepts}; it is "${fields[i]}"`;
  }
  if (!reads(fields.join(' '))) return `these fields do not make a pattern together ${EXAMPLE}`;
  return undefined;
}

function reads(pattern: string): boolean {
  try {
    CronExpressionParser.parse(pattern);
    return true;
  } catch {
    return false;
  }
}
