import { ok, type FakeAnswer } from './fake-answer';
import type { FakeContact, FakeStore } from './fake-store';

/** ActiveCampaign's largest page of contacts: a larger `limit` is answered with 100. */
export const MAX_CONTACTS_LIMIT = 100;

export interface ContactReads {
  /** Every `limit` asked for, as given. */
  limits: number[];
  /** Pages read with `offset` (slow on large accounts; the connector pages by `id_greater`). */
  offsetPages: number;
}

function contactJson(contact: FakeContact, store: FakeStore, include: Set<string>) {
  return {
    id: contact.id,
    email: contact.email,
    cdate: contact.cdate,
    udate: contact.udate,
    firstName: '',
    lastName: '',
    ...(include.has('fieldValues') ? { fieldValues: [...contact.fields.keys()].map((field) => `${contact.id}-${field}`) } : {}),
    ...(include.has('contactTags') ? { contactTags: store.contactTagsOf(contact.id).map(([id]) => id) } : {}),
  };
}

/**
 * `GET /api/3/contacts`: `limit` (at most 100), `offset`, `id_greater`, `orders[id]`, `listid`,
 * `ids[]`, `filters[updated_after]`, and `include=fieldValues,contactTags` side-loading the contacts'
 * field values and tags beside them, as ActiveCampaign does.
 */
export function listContacts(store: FakeStore, query: URLSearchParams, reads: ContactReads): FakeAnswer {
  const asked = Number(query.get('limit') ?? 20);
  reads.limits.push(asked);
  const limit = Math.min(Math.max(asked, 1), MAX_CONTACTS_LIMIT);
  const offset = Number(query.get('offset') ?? 0);
  if (offset > 0) reads.offsetPages++;
  const idGreater = Number(query.get('id_greater') ?? 0);
  const listId = query.get('listid');
  // A Set: reads by id (100 at a time) scanned every contact once per id asked.
  const ids = new Set(query.getAll('ids[]'));
  const updatedAfter = query.get('filters[updated_after]');
  const after = updatedAfter ? Date.parse(updatedAfter) : undefined;
  const include = new Set((query.get('include') ?? '').split(',').filter(Boolean));
  let all = [...store.contacts.values()].filter(
    (c) =>
      Number(c.id) > idGreater &&
      (!listId || c.lists.has(listId)) &&
      (ids.size === 0 || ids.has(c.id)) &&
      (after === undefined || Date.parse(c.udate) > after),
  );
  if (query.get('orders[id]')?.toUpperCase() === 'DESC') all = all.reverse();
  const page = all.slice(offset, offset + limit);
  return ok({
    contacts: page.map((c) => contactJson(c, store, include)),
    ...(include.has('fieldValues')
      ? { fieldValues: page.flatMap((c) => [...c.fields].map(([field, value]) => ({ id: `${c.id}-${field}`, contact: c.id, field, value, owner: c.id }))) }
      : {}),
    ...(include.has('contactTags') ? { contactTags: page.flatMap((c) => store.contactTagsOf(c.id).map(([id, ct]) => ({ id, contact: ct.contact, tag: ct.tag }))) } : {}),
    meta: { total: String(all.length) },
  });
}
