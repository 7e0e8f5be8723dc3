import { notFound, ok, refused, type FakeAnswer } from './fake-answer';
import type { FakeStore } from './fake-store';

const FIELD_TYPES = new Set(['dropdown', 'hidden', 'checkbox', 'date', 'text', 'datetime', 'textarea', 'NULL', 'listbox', 'radio']);

const fieldJson = (f: { id: string; title: string; perstag: string; type: string }) => ({ id: f.id, title: f.title, perstag: f.perstag, type: f.type, descript: null, isrequired: '0', visible: '1' });

/**
 * Custom fields (`GET|POST /fields`, a field's relations to lists in `fieldRels` beside the page; a
 * personalization tag already used is refused 422), list relations (`POST /fieldRels`, relid 0 = every
 * list), tags (`GET /tags?search=`, `POST /tags`, a name already used refused 422) and contact tags
 * (`DELETE /contactTags/<id>`).
 */
export function schemaRoute(store: FakeStore, method: string, path: string, query: URLSearchParams, body: Record<string, unknown>): FakeAnswer | undefined {
  if (method === 'GET' && path === '/fields') {
    const limit = Math.min(Number(query.get('limit') ?? 20), 100);
    const offset = Number(query.get('offset') ?? 0);
    const page = [...store.fields.values()].slice(offset, offset + limit);
    const ids = new Set(page.map((f) => f.id));
    const rels = [...store.fieldRels].filter(([, r]) => ids.has(r.field)).map(([id, r]) => ({ id, ...r }));
    return ok({ fields: page.map(fieldJson), fieldRels: rels, fieldOptions: [], meta: { total: String(store.fields.size) } });
  }
  if (method === 'POST' && path === '/fields') {
    const field = (body.field ?? {}) as Record<string, unknown>;
    if (typeof field.title !== 'string' || !field.title) return refused(422, 'Title is required', 'field_missing');
    if (typeof field.type !== 'string' || !FIELD_TYPES.has(field.type)) return refused(422, 'Type is not valid', 'invalid');
    const perstag = typeof field.perstag === 'string' && field.perstag ? field.perstag.toUpperCase() : field.title.toUpperCase().replace(/\W+/g, '_');
    if ([...store.fields.values()].some((f) => f.perstag === perstag)) return refused(422, 'Personalization tag already exists', 'duplicate');
    return ok({ field: fieldJson(store.addField({ title: field.title, perstag, type: field.type })) }, 201);
  }
  if (method === 'POST' && path === '/fieldRels') {
    const rel = (body.fieldRel ?? {}) as Record<string, unknown>;
    const field = String(rel.field ?? '');
    if (!store.fields.has(field)) return refused(422, 'Field not found', 'related_missing');
    if (rel.relid === undefined) return refused(422, 'relid is required', 'field_missing');
    return ok({ fieldRel: store.relate(field, String(rel.relid)) }, 201);
  }
  if (method === 'GET' && path === '/tags') {
    const search = (query.get('search') ?? '').toLowerCase();
    const limit = Math.min(Number(query.get('limit') ?? 20), 100);
    const tags = [...store.tags.values()].filter((t) => t.tag.toLowerCase().includes(search)).slice(0, limit);
    return ok({ tags, meta: { total: String(tags.length) } });
  }
  if (method === 'POST' && path === '/tags') {
    const tag = (body.tag ?? {}) as Record<string, unknown>;
    if (typeof tag.tag !== 'string' || !tag.tag) return refused(422, 'Tag name is required', 'field_missing');
    if (store.tagByName(tag.tag)) return refused(422, 'Duplicate tag', 'duplicate');
    return ok({ tag: store.addTag(tag.tag) }, 201);
  }
  const contactTag = /^\/contactTags\/([^/]+)$/.exec(path);
  if (method === 'DELETE' && contactTag) return store.untag(contactTag[1]!) ? ok({}) : notFound('ContactTag');
  return undefined;
}
