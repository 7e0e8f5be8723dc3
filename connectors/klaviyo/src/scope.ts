import { InputError, formatScope, type Scope } from '@verify-hub/core';

/**
 * The scopes a Klaviyo connection reads:
 * - `all`: every profile of the account;
 * - `list:<id>` and `segment:<id>`: the members of a list or segment (these endpoints cannot filter
 *   by `updated`: unchanged profiles are skipped by what the hub last wrote, not by the query);
 * - `changed-since:<ISO time>`: every profile updated after that time (`greater-than(updated,...)`);
 * - `list:<id>:since:<ISO time>` (and segment): the members updated after that time, filtered from
 *   the pages as read, since the list and segment endpoints cannot filter by `updated`.
 */
export type KlaviyoTarget = { kind: 'all' } | { kind: 'list' | 'segment'; id: string; since?: Date } | { kind: 'changed-since'; since: Date };

const KLAVIYO_ID = /^[A-Za-z0-9]{1,64}$/;

export function resolveScope(scope: Scope): KlaviyoTarget {
  const value = scope.value?.trim() ?? '';
  switch (scope.kind) {
    case 'all':
      return { kind: 'all' };
    case 'list':
    case 'segment': {
      const [id = '', word, ...time] = value.split(':');
      if (!KLAVIYO_ID.test(id)) throw new InputError('scope', `${scope.kind}: needs a Klaviyo ${scope.kind} id (letters and digits, like ${scope.kind}:Y6nRLr)`);
      if (word === undefined) return { kind: scope.kind, id };
      if (word !== 'since') throw new InputError('scope', `${scope.kind}: after the id comes only :since:<ISO time>`);
      return { kind: scope.kind, id, since: isoTime(time.join(':'), `${scope.kind}:${id}:since`) };
    }
    case 'changed-since':
      return { kind: 'changed-since', since: isoTime(value, 'changed-since') };
    default:
      throw new InputError('scope', `${formatScope(scope)} is not a Klaviyo scope (use all, list:<id>, segment:<id>, changed-since:<time>)`);
  }
}

function isoTime(text: string, what: string): Date {
  const time = new Date(text);
  if (!text || !/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(time.getTime())) throw new InputError('scope', `${what}: needs an ISO 8601 time, like ${what}:2026-01-31T00:00:00Z`);
  return time;
}

/** Klaviyo's filter time: ISO 8601 to the second, in UTC. */
export const klaviyoTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
