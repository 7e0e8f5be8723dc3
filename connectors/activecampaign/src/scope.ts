import { InputError, formatScope, type Scope } from '@verify-hub/core';

/**
 * The scopes an ActiveCampaign run reads:
 * - `all`: every contact of the account;
 * - `list:<id>`: the contacts of one list (`listid`);
 * - `changed-since:<time>`, or `changed-since:<list>:<time>`: contacts changed after `<time>`, an ISO
 *   8601 time or a span back from the run's start (`90m`, `26h`, `2d`): a daily schedule of
 *   `changed-since:26h` catches what a lost webhook delivery missed (ActiveCampaign never retries one).
 */
export type ActivecampaignScope = { listId?: string; since?: { at: Date } | { spanMs: number } };

const SPAN = /^(\d{1,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const LIST = /^\d+$/;

function since(text: string): { at: Date } | { spanMs: number } {
  const span = SPAN.exec(text);
  if (span) return { spanMs: Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS] };
  const at = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at.getTime())) {
    throw new InputError('scope', 'changed-since: needs an ISO 8601 time (changed-since:2026-01-31T00:00:00Z) or a span back from now (changed-since:26h, 90m, 2d)');
  }
  return { at };
}

export function resolveScope(scope: Scope): ActivecampaignScope {
  const value = scope.value?.trim() ?? '';
  switch (scope.kind) {
    case 'all':
      return {};
    case 'list':
      if (!LIST.test(value)) throw new InputError('scope', 'list: needs a list id (digits), like list:3');
      return { listId: value };
    case 'changed-since': {
      const colon = value.indexOf(':');
      const head = colon < 0 ? '' : value.slice(0, colon);
      if (LIST.test(head) && !/^\d{4}-/.test(value)) return { listId: head, since: since(value.slice(colon + 1)) };
      return { since: since(value) };
    }
    default:
      throw new InputError('scope', `${formatScope(scope)} is not an ActiveCampaign scope (use all, list:<id>, changed-since:<time or span>)`);
  }
}

/** Where paging stands: the last contact id read, and the changed-since time fixed when the run began. */
export interface PullCursor {
  afterId: number;
  sinceMs?: number;
}

export function parseCursor(cursor: string | undefined): PullCursor {
  if (cursor === undefined || cursor === '') return { afterId: 0 };
  const m = /^(\d+)(?:@(\d+))?$/.exec(cursor);
  if (!m) throw new InputError('cursor', 'must be the cursor a previous page returned (<last id>[@<since ms>])');
  return { afterId: Number(m[1]), ...(m[2] ? { sinceMs: Number(m[2]) } : {}) };
}

export const formatCursor = (cursor: PullCursor): string => `${cursor.afterId}${cursor.sinceMs === undefined ? '' : `@${cursor.sinceMs}`}`;
