import { InputError, formatScope, type Scope } from '@verify-hub/core';

/**
 * The scopes this connector reads:
 * - `all`: the connection's audience (`settings.listId`);
 * - `audience:<list_id>` (alias `list:<list_id>`);
 * - `segment:<list_id>:<segment_id>`: a saved segment or tag;
 * - `changed-since:<ISO time>` (the connection's audience) or `changed-since:<list_id>:<ISO time>`.
 */
export type MailchimpScope =
  | { kind: 'audience'; listId: string }
  | { kind: 'segment'; listId: string; segmentId: string }
  | { kind: 'changed-since'; listId: string; since: Date };

const LIST_THEN_TIME = /^([A-Za-z0-9]+):(\d{4}-\d{2}-\d{2}.*)$/;

export function resolveScope(scope: Scope, defaultListId: string | undefined): MailchimpScope {
  const needList = () => {
    if (!defaultListId) throw new InputError('scope', `${formatScope(scope)} needs the connection's settings.listId, or name the audience: audience:<list_id>`);
    return defaultListId;
  };
  const value = scope.value?.trim() ?? '';
  switch (scope.kind) {
    case 'all':
      return { kind: 'audience', listId: needList() };
    case 'audience':
    case 'list':
      if (!value) throw new InputError('scope', `${scope.kind}: needs a list id, like audience:a1b2c3d4e5`);
      return { kind: 'audience', listId: value };
    case 'segment': {
      const [listId, segmentId, ...rest] = value.split(':');
      if (!listId || !segmentId || rest.length) throw new InputError('scope', 'segment: must be segment:<list_id>:<segment_id>');
      return { kind: 'segment', listId, segmentId };
    }
    case 'changed-since': {
      const m = LIST_THEN_TIME.exec(value);
      const listId = m ? m[1]! : needList();
      const time = m ? m[2]! : value;
      const since = new Date(time);
      if (!time || Number.isNaN(since.getTime())) throw new InputError('scope', 'changed-since: needs an ISO 8601 time, like changed-since:2026-01-31T00:00:00Z');
      return { kind: 'changed-since', listId, since };
    }
    default:
      throw new InputError('scope', `${formatScope(scope)} is not a Mailchimp scope (use all, audience:<list>, segment:<list>:<segment>, changed-since:<time>)`);
  }
}

/** Mailchimp's documented time form, `2015-10-21T15:41:36+00:00`. */
export function mailchimpTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === '') return 0;
  if (!/^\d+$/.test(cursor)) throw new InputError('cursor', 'must be the offset a previous page returned');
  return Number(cursor);
}
