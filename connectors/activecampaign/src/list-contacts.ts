import type { Contact, Page } from '@verify-hub/core';
import type { AccountSchema } from './account-schema';
import type { ActivecampaignClient, Query } from './api-client';
import { toContacts } from './contacts';
import { ContactsPage, ContactsTotal } from './responses';
import { formatCursor, type ActivecampaignScope, type PullCursor } from './scope';

/** ActiveCampaign's largest page of contacts. */
export const CONTACTS_PAGE_SIZE = 100;
/**
 * Contacts one `pull` hands the host: five of ActiveCampaign's pages, so the host's batches fill two
 * bulk imports (250 each): 4 imports per 1,000 contacts instead of the 10 that pages of 100 would make.
 */
export const PULL_SIZE = 500;

/** What every contact read side-loads: verify-hub's field values and the contact's tags. */
const INCLUDE = 'fieldValues,contactTags';

/** `2026-01-31T09:00:00+00:00`: the form ActiveCampaign's own dates take. */
const acTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

/**
 * One page of the run: up to 500 contacts, read as ActiveCampaign pages of at most 100 (`onePage`).
 * The changed-since time of a span (`26h`) is fixed by the first page and carried in the cursor.
 */
export async function listContacts(client: ActivecampaignClient, schema: AccountSchema, scope: ActivecampaignScope, cursor: PullCursor, now = Date.now()): Promise<Page> {
  const pages: Page[] = [];
  let at: PullCursor | undefined = cursor;
  let read = 0;
  while (at && read < PULL_SIZE) {
    const limit = Math.min(CONTACTS_PAGE_SIZE, PULL_SIZE - read);
    const page = await onePage(client, schema, scope, at, limit, now);
    pages.push(page.page);
    read += limit;
    at = page.next;
  }
  const skipped: Record<string, number> = {};
  for (const page of pages) for (const [why, n] of Object.entries(page.skipped ?? {})) skipped[why] = (skipped[why] ?? 0) + n;
  return { contacts: pages.flatMap((p) => p.contacts), ...(at ? { next: formatCursor(at) } : {}), ...(Object.keys(skipped).length ? { skipped } : {}) };
}

/**
 * One ActiveCampaign page, ordered by id and paged by `id_greater` (offset paging gets slow and shifts
 * on large accounts), of a list or of the account, changed after the scope's time
 * (`filters[updated_after]`; contacts whose `udate` is not after it are also skipped here, as the
 * filter may be coarser than the time). A page shorter than asked is the last.
 */
/** The query's filters for a scope: its list, and contacts changed after its time. */
function filters(scope: ActivecampaignScope, sinceMs: number | undefined): Query {
  return { ...(scope.listId ? { listid: scope.listId } : {}), ...(sinceMs === undefined ? {} : { 'filters[updated_after]': acTime(sinceMs) }) };
}

const sinceOf = (scope: ActivecampaignScope, now: number) => (scope.since ? ('at' in scope.since ? scope.since.at.getTime() : now - scope.since.spanMs) : undefined);

/** How many contacts the scope holds, as ActiveCampaign counts them (`meta.total` of a one-contact page): a run's progress. */
export async function countContacts(client: ActivecampaignClient, scope: ActivecampaignScope, now = Date.now()): Promise<number | undefined> {
  const page = await client.call('GET', '/contacts', ContactsTotal, { query: { limit: 1, ...filters(scope, sinceOf(scope, now)) } });
  return page.meta?.total;
}

async function onePage(client: ActivecampaignClient, schema: AccountSchema, scope: ActivecampaignScope, cursor: PullCursor, limit: number, now: number): Promise<{ page: Page; next?: PullCursor }> {
  const sinceMs = cursor.sinceMs ?? sinceOf(scope, now);
  const query: Query = {
    limit,
    'orders[id]': 'ASC',
    include: INCLUDE,
    ...(cursor.afterId > 0 ? { id_greater: cursor.afterId } : {}),
    ...filters(scope, sinceMs),
  };
  const page = await client.call('GET', '/contacts', ContactsPage, { query });
  const changed = sinceMs === undefined ? page.contacts : page.contacts.filter((c) => !c.udate || !(Date.parse(c.udate) <= sinceMs));
  const { contacts, noEmail } = toContacts({ ...page, contacts: changed }, schema);
  const skipped: Record<string, number> = {};
  if (noEmail) skipped.no_email = noEmail;
  if (changed.length < page.contacts.length) skipped.unchanged_since = page.contacts.length - changed.length;
  const last = page.contacts.at(-1);
  const next = page.contacts.length === limit && last ? { afterId: Number(last.id), ...(sinceMs === undefined ? {} : { sinceMs }) } : undefined;
  return { page: { contacts, ...(Object.keys(skipped).length ? { skipped } : {}) }, ...(next ? { next } : {}) };
}

/** The contacts of `ids` that still exist, read as `pull` reads them (100 ids a call). */
export async function contactsById(client: ActivecampaignClient, schema: AccountSchema, ids: string[]): Promise<Contact[]> {
  const found: Contact[] = [];
  for (let i = 0; i < ids.length; i += CONTACTS_PAGE_SIZE) {
    const part = ids.slice(i, i + CONTACTS_PAGE_SIZE);
    const page = await client.call('GET', '/contacts', ContactsPage, { query: { ids: part, include: INCLUDE, limit: CONTACTS_PAGE_SIZE } });
    found.push(...toContacts(page, schema).contacts);
  }
  return found;
}
