import type { SchemaReport } from '@verify-hub/core';
import type { ActivecampaignClient } from './api-client';
import { discoverSchema, type AccountSchema } from './account-schema';
import { ActivecampaignRequestError } from './errors';
import { EV_FIELDS, RISK_TAGS } from './field-mapping';
import { FieldCreated, FieldRelCreated, TagCreated } from './responses';

/** Field types that hold the text verify-hub writes as it is. */
const TEXT_TYPES = new Set(['text', 'textarea', 'hidden']);

/**
 * Makes what is missing, idempotently, and says what it found: the custom fields (`POST /fields`, type
 * text), each related (`POST /fieldRels`) to `listId` or, without one and when it is related to no
 * list yet, to every list (relid 0), since a field is shown only on the lists it is related to; and the tags ev-safe, ev-risky, ev-invalid and
 * ev-unknown (`POST /tags`). A field of another type under our name is a problem to fix, never changed.
 */
export async function ensureSchema(client: ActivecampaignClient, listId?: string): Promise<{ report: SchemaReport; schema: AccountSchema }> {
  const report: SchemaReport = { created: [], existing: [], problems: [] };
  const schema = await discoverSchema(client);
  const relid = listId ?? '0';
  const where = listId ? `list ${listId}` : 'every list';
  for (const def of EV_FIELDS) {
    const found = schema.fields.get(def.name);
    let fieldId = found?.field.id;
    if (found && !TEXT_TYPES.has(found.field.type ?? 'text')) {
      report.problems.push(`field "${found.field.title}" exists with type ${found.field.type}; verify-hub writes text there (rename it in ActiveCampaign and run setup again)`);
      continue;
    }
    if (fieldId) report.existing.push(`field "${def.title}" (%${def.perstag}%)`);
    else {
      try {
        const created = await client.call('POST', '/fields', FieldCreated, { body: { field: { type: 'text', title: def.title, descript: def.descript, perstag: def.perstag, isrequired: 0, visible: 1 } } });
        fieldId = created.field.id;
        schema.fieldIds.set(def.name, fieldId);
        schema.fields.set(def.name, { field: created.field, relids: new Set() });
        report.created.push(`field "${def.title}" (%${def.perstag}%, text)`);
      } catch (error) {
        if (!(error instanceof ActivecampaignRequestError)) throw error;
        report.problems.push(`field "${def.title}" could not be created: ${error.message}`);
        continue;
      }
    }
    const relids = schema.fields.get(def.name)!.relids;
    // A field already shown somewhere keeps the lists it has, unless a list is named: a run's set-up
    // (no list) never widens what `setup --list` chose.
    if (relids.has(relid) || relids.has('0') || (!listId && relids.size > 0)) continue;
    await client.call('POST', '/fieldRels', FieldRelCreated, { body: { fieldRel: { field: Number(fieldId), relid: Number(relid) } } });
    relids.add(relid);
    report.created.push(`field "${def.title}" shown on ${where}`);
  }
  for (const name of RISK_TAGS) {
    if (schema.tagIds.has(name)) {
      report.existing.push(`tag ${name}`);
      continue;
    }
    const created = await client.call('POST', '/tags', TagCreated, { body: { tag: { tag: name, tagType: 'contact', description: 'verify-hub: the risk of the last email verification' } } });
    schema.tagIds.set(name, created.tag.id);
    report.created.push(`tag ${name}`);
  }
  return { report, schema };
}
