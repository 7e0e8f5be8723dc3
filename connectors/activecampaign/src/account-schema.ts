import type { ActivecampaignClient } from './api-client';
import { EV_FIELDS, RISK_TAGS } from './field-mapping';
import { FieldsPage, TagsPage, type Field, type FieldRel, type Tag } from './responses';

/** The most fields or tags ActiveCampaign lists a call. */
const LIST_LIMIT = 100;

/** What an account holds of verify-hub's fields and tags, found by name: their ids, absent where missing. */
export interface AccountSchema {
  /** Field id by value name (`ev_risk` -> "12"). */
  fieldIds: Map<string, string>;
  /** Tag id by tag name (`ev-safe` -> "7"). */
  tagIds: Map<string, string>;
  /** The fields found, by value name, and the lists each is related to (`0`: every list). */
  fields: Map<string, { field: Field; relids: Set<string> }>;
}

/** Every custom field of the account, a page of 100 at a time, with the lists each is related to. */
async function allFields(client: ActivecampaignClient): Promise<{ fields: Field[]; rels: FieldRel[] }> {
  const fields: Field[] = [];
  const rels: FieldRel[] = [];
  for (let offset = 0; ; offset += LIST_LIMIT) {
    const page = await client.call('GET', '/fields', FieldsPage, { query: { limit: LIST_LIMIT, offset } });
    fields.push(...page.fields);
    rels.push(...page.fieldRels);
    if (page.fields.length < LIST_LIMIT) return { fields, rels };
  }
}

/** The account's tags whose name starts with `ev-` (the `search` filter matches part of a name). */
async function riskTags(client: ActivecampaignClient): Promise<Tag[]> {
  const page = await client.call('GET', '/tags', TagsPage, { query: { search: 'ev-', limit: LIST_LIMIT } });
  return page.tags;
}

/**
 * Finds verify-hub's fields (by personalization tag, else by title, case aside) and risk tags (by
 * name) in the account. Found by name every time, so a field deleted and made again is found again.
 */
export async function discoverSchema(client: ActivecampaignClient): Promise<AccountSchema> {
  const [{ fields, rels }, tags] = await Promise.all([allFields(client), riskTags(client)]);
  const schema: AccountSchema = { fieldIds: new Map(), tagIds: new Map(), fields: new Map() };
  for (const def of EV_FIELDS) {
    const found =
      fields.find((f) => f.perstag?.toUpperCase() === def.perstag) ?? fields.find((f) => f.title.trim().toLowerCase() === def.title.toLowerCase());
    if (!found) continue;
    schema.fieldIds.set(def.name, found.id);
    schema.fields.set(def.name, { field: found, relids: new Set(rels.filter((r) => r.field === found.id).map((r) => r.relid)) });
  }
  for (const name of RISK_TAGS) {
    const found = tags.find((t) => t.tag.trim().toLowerCase() === name);
    if (found) schema.tagIds.set(name, found.id);
  }
  return schema;
}

/**
 * Ids found recently, by account and API address: a chunk's connector is made per job, and finding
 * them again costs three calls of the account's five a second. Kept ten minutes; `setup` and the first
 * page of every run find them afresh (`remember`).
 */
const SCHEMA_TTL_MS = 10 * 60_000;
const recent = new Map<string, { at: number; schema: AccountSchema }>();

export function remember(key: string, schema: AccountSchema): AccountSchema {
  recent.set(key, { at: Date.now(), schema });
  return schema;
}

export async function knownSchema(key: string, client: ActivecampaignClient): Promise<AccountSchema> {
  const held = recent.get(key);
  // An incomplete set (setup not run yet when it was found) is looked up again, not kept ten minutes.
  const complete = held && held.schema.fieldIds.size === EV_FIELDS.length && held.schema.tagIds.size === RISK_TAGS.length;
  if (held && complete && Date.now() - held.at < SCHEMA_TTL_MS) return held.schema;
  return remember(key, await discoverSchema(client));
}
