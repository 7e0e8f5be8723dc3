import { InputError, type Scope } from '@verify-hub/core';

/** What a run reads: a saved filter (`filter_id`) and/or persons changed since a time (`updated_since`). */
export interface PersonsQuery {
  filterId?: number;
  updatedSince?: string;
}

const positiveId = (text: string | undefined): number => {
  if (!text || !/^\d+$/.test(text) || Number(text) <= 0) throw new InputError('scope', 'filter:<id> needs the numeric id of a saved person filter');
  return Number(text);
};

/** Pipedrive's `updated_since` is RFC 3339 in UTC without fractions: `2025-01-01T10:20:00Z`. */
const sinceOf = (text: string | undefined): string => {
  const at = text ? Date.parse(text) : NaN;
  if (!Number.isFinite(at)) throw new InputError('scope', 'changed-since:<time> needs an ISO 8601 time, like 2025-01-31T00:00:00Z');
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
};

/**
 * The scopes Pipedrive runs read: `all` (the connection's saved filter, when it has one),
 * `filter:<id>`, `changed-since:<ISO time>` and `filter:<id>:changed-since:<ISO time>`. Anything else
 * is an `InputError` naming `scope`, at the start of a run.
 */
export function personsQuery(scope: Scope, defaultFilterId?: number): PersonsQuery {
  if (scope.kind === 'all' && scope.value === undefined) return defaultFilterId ? { filterId: defaultFilterId } : {};
  if (scope.kind === 'changed-since') return { ...(defaultFilterId ? { filterId: defaultFilterId } : {}), updatedSince: sinceOf(scope.value) };
  if (scope.kind === 'filter') {
    const [id, rest] = (scope.value ?? '').split(/:(.*)/s, 2) as [string, string | undefined];
    if (rest === undefined) return { filterId: positiveId(id) };
    if (!rest.startsWith('changed-since:')) throw new InputError('scope', 'after filter:<id> only :changed-since:<ISO time> may follow');
    return { filterId: positiveId(id), updatedSince: sinceOf(rest.slice('changed-since:'.length)) };
  }
  throw new InputError('scope', 'Pipedrive reads all, filter:<id>, changed-since:<ISO time> or filter:<id>:changed-since:<ISO time>');
}

export function checkPipedriveScope(scope: Scope): void {
  personsQuery(scope);
}
