import { z } from 'zod';
import type { Filter, FilterOperatorEnum as FilterOperator } from '@hubspot/api-client/lib/codegen/crm/contacts';
import { InputError, type Contact, type Page, type Scope } from '@verify-hub/core';
import type { HubSpotApis } from './client';
import type { RequestRunner } from './request-runner';
import type { ResolvedSettings } from './settings';

/** HubSpot's page sizes and the search API's hard cap on results reachable by paging one query. */
export const OBJECTS_PAGE = 100;
export const BATCH_MAX = 100;
export const SEARCH_PAGE = 200;
export const SEARCH_CAP = 10_000;

/** A search filter operator by its wire value: the SDK's enum type, without loading its model modules. */
const operator = (value: 'EQ' | 'GT' | 'GTE') => value as FilterOperator;

/** Cursors are opaque JSON to the pipeline; validated on the way back in. */
const AfterCursor = z.object({ after: z.string().min(1) });
const SearchMainCursor = z.object({
  phase: z.literal('main'),
  /** Lower bound on lastmodifieddate, epoch ms; `inclusive` decides GTE or GT. */
  since: z.number(),
  inclusive: z.boolean(),
  /** Contacts at exactly `since` already returned. */
  exclude: z.array(z.string()).default([]),
});
const SearchTieCursor = z.object({
  phase: z.literal('tie'),
  /** The value whose contacts are walked in id order. */
  at: z.number(),
  afterId: z.string().optional(),
  /** Contacts at `at` already returned. */
  exclude: z.array(z.string()),
});
const SearchCursor = z.discriminatedUnion('phase', [SearchMainCursor, SearchTieCursor]);
type SearchCursorValue = z.infer<typeof SearchCursor>;

function readCursor<T>(schema: z.ZodType<T>, cursor: string): T {
  try {
    return schema.parse(JSON.parse(cursor));
  } catch {
    throw new InputError('cursor', 'is not a cursor this connector produced for this scope');
  }
}

interface HubSpotRecord {
  id: string;
  properties: Record<string, string | null | undefined>;
}

export class ContactPuller {
  constructor(
    private readonly runner: RequestRunner,
    private readonly apis: () => HubSpotApis,
    private readonly settings: ResolvedSettings,
  ) {}

  /** Everything pull asks for: the email, the modification time, and our own properties (to skip unchanged writes). */
  get propertyNames(): string[] {
    return ['email', 'lastmodifieddate', ...Object.values(this.settings.names)];
  }

  async pull(scope: Scope, cursor?: string): Promise<Page> {
    checkHubSpotScope(scope);
    switch (scope.kind) {
      case 'list':
        return this.pullList(scope.value!, cursor);
      case 'changed-since':
        return this.pullChangedSince(Date.parse(scope.value!), cursor);
      default:
        return this.pullAll(cursor);
    }
  }

  /** Contacts by id, for webhook events that carry no email; ids HubSpot does not have are left out. */
  async byIds(ids: string[]): Promise<Contact[]> {
    const unique = [...new Set(ids)];
    const contacts: Contact[] = [];
    for (let i = 0; i < unique.length; i += BATCH_MAX) {
      const records = await this.batchRead(unique.slice(i, i + BATCH_MAX));
      contacts.push(...this.toContacts(records).contacts);
    }
    return contacts;
  }

  private async pullAll(cursor?: string): Promise<Page> {
    const after = cursor === undefined ? undefined : readCursor(AfterCursor, cursor).after;
    const page = await this.runner.run('default', () => this.apis().contactsBasic.getPage(OBJECTS_PAGE, after, this.propertyNames, undefined, undefined, false));
    const next = page.paging?.next?.after;
    return { ...this.toContacts(page.results), ...(next ? { next: JSON.stringify({ after: next }) } : {}) };
  }

  private async pullList(listId: string, cursor?: string): Promise<Page> {
    const after = cursor === undefined ? undefined : readCursor(AfterCursor, cursor).after;
    const members = await this.runner.run('default', () => this.apis().listMemberships.getPage(listId, after, undefined, BATCH_MAX));
    const ids = members.results.map((m) => String(m.recordId));
    const records = ids.length ? await this.batchRead(ids) : [];
    const page = this.toContacts(records);
    const missing = ids.length - records.length;
    if (missing > 0) page.skipped = { ...page.skipped, not_found: missing };
    const next = members.paging?.next?.after;
    return { ...page, ...(next ? { next: JSON.stringify({ after: next }) } : {}) };
  }

  /**
   * Search sorted by lastmodifieddate ascending, 200 a page, re-filtering from the last value seen on
   * every page instead of paging with `after`: no query ever goes near the 10,000-result cap, and
   * nothing depends on the order HubSpot gives contacts that share a value (it promises none, so
   * offset paging over ties can repeat or skip contacts). Contacts at the boundary value already
   * returned are excluded from the next page. A page made only of one value (a bulk import shares a
   * timestamp) switches to walking that value's contacts by id, however many there are, then goes on
   * with GT that value.
   */
  private async pullChangedSince(start: number, cursor?: string): Promise<Page> {
    const state: SearchCursorValue = cursor === undefined
      ? { phase: 'main', since: start, inclusive: true, exclude: [] }
      : readCursor(SearchCursor, cursor);
    return state.phase === 'main' ? this.searchMain(state) : this.searchTie(state);
  }

  private async searchMain(state: z.infer<typeof SearchMainCursor>): Promise<Page> {
    const filters: Filter[] = [{ propertyName: 'lastmodifieddate', operator: operator(state.inclusive ? 'GTE' : 'GT'), value: String(state.since) }];
    const page = await this.search(filters, 'lastmodifieddate');
    const exclude = new Set(state.exclude);
    const result = this.toContacts(page.results.filter((r) => !exclude.has(r.id)));
    const full = page.results.length >= SEARCH_PAGE || Boolean(page.paging?.next?.after);
    if (!full) return result;
    const modified = (r: HubSpotRecord) => Date.parse(r.properties.lastmodifieddate ?? '');
    const first = modified(page.results[0]!);
    const last = modified(page.results.at(-1)!);
    if (!Number.isFinite(first) || !Number.isFinite(last)) throw new InputError('lastmodifieddate', 'HubSpot returned a contact without a modification date; cannot page changed-since');
    const atLast = page.results.filter((r) => modified(r) === last).map((r) => r.id);
    const carried = state.since === last ? state.exclude : [];
    const next: SearchCursorValue = first === last
      ? { phase: 'tie', at: last, exclude: [...new Set([...carried, ...atLast])] }
      : { phase: 'main', since: last, inclusive: true, exclude: atLast };
    return { ...result, next: JSON.stringify(next) };
  }

  private async searchTie(state: z.infer<typeof SearchTieCursor>): Promise<Page> {
    const filters: Filter[] = [{ propertyName: 'lastmodifieddate', operator: operator('EQ'), value: String(state.at) }];
    if (state.afterId !== undefined) filters.push({ propertyName: 'hs_object_id', operator: operator('GT'), value: state.afterId });
    const page = await this.search(filters, 'hs_object_id');
    const exclude = new Set(state.exclude);
    const result = this.toContacts(page.results.filter((r) => !exclude.has(r.id)));
    const lastId = page.results.at(-1)?.id;
    const more = page.results.length >= SEARCH_PAGE || Boolean(page.paging?.next?.after);
    const next: SearchCursorValue = more && lastId !== undefined
      ? { ...state, afterId: lastId }
      : { phase: 'main', since: state.at, inclusive: false, exclude: [] };
    return { ...result, next: JSON.stringify(next) };
  }

  private search(filters: Filter[], sortBy: string) {
    return this.runner.run('search', () => this.apis().contactsSearch.doSearch({
      filterGroups: [{ filters }],
      // The SDK types sorts as strings; the API takes the documented { propertyName, direction } form.
      sorts: [{ propertyName: sortBy, direction: 'ASCENDING' }] as unknown as string[],
      properties: this.propertyNames,
      limit: SEARCH_PAGE,
    }));
  }

  /** Batch read (<= 100 ids); a 207 lists the ids HubSpot does not have, which are left out. */
  private async batchRead(ids: string[]): Promise<HubSpotRecord[]> {
    const answer = await this.runner.run('default', () => this.apis().contactsBatch.read({ inputs: ids.map((id) => ({ id })), properties: this.propertyNames, propertiesWithHistory: [] }, false));
    return answer.results;
  }

  private toContacts(records: HubSpotRecord[]): Page {
    const contacts: Contact[] = [];
    let noEmail = 0;
    for (const record of records) {
      const email = record.properties.email?.trim();
      if (!email) {
        noEmail++;
        continue;
      }
      const current: Record<string, unknown> = {};
      for (const name of Object.values(this.settings.names)) current[name] = record.properties[name] ?? null;
      contacts.push({ id: record.id, email, current });
    }
    return { contacts, ...(noEmail ? { skipped: { no_email: noEmail } } : {}) };
  }
}

/** The scopes HubSpot runs read: `all`, `list:<numeric id>`, `changed-since:<ISO time>`; an `InputError` naming `scope` otherwise. */
export function checkHubSpotScope(scope: Scope): void {
  switch (scope.kind) {
    case 'all':
      return;
    case 'list':
      if (!scope.value || !/^\d+$/.test(scope.value)) throw new InputError('scope', 'list:<id> needs a numeric HubSpot list id (v3 list id)');
      return;
    case 'changed-since':
      if (!Number.isFinite(Date.parse(scope.value ?? ''))) throw new InputError('scope', 'changed-since:<time> needs an ISO 8601 time, for example changed-since:2026-01-31T00:00:00Z');
      return;
    default:
      throw new InputError('scope', `HubSpot scopes are all, list:<id> and changed-since:<ISO time>; got ${scope.kind}`);
  }
}
