import type { SchemaReport } from '@verify-hub/core';
import type { BrevoApi } from './brevo-api';
import { BREVO_ATTRIBUTES } from './mapping';

/** Brevo names some types differently in `GET /contacts/attributes` than in the create call. */
const sameType = (wanted: string, found: string | undefined) => found === undefined || found === wanted || (wanted === 'float' && found === 'number');

/**
 * Creates the verify-hub attributes that are missing (category `normal`, upper-case names); an
 * attribute of another type under one of our names is a problem the user must fix, never changed.
 * Idempotent: a second run creates nothing. Imports would silently drop a value whose attribute is
 * missing (Brevo ignores unknown attributes), so this runs before every sync.
 */
export async function ensureAttributes(api: BrevoApi, report: SchemaReport): Promise<void> {
  const existing = new Map((await api.attributes()).filter((a) => a.category === 'normal').map((a) => [a.name.toUpperCase(), a] as const));
  for (const { name, type } of BREVO_ATTRIBUTES) {
    const found = existing.get(name);
    if (!found) {
      await api.createAttribute(name, type);
      report.created.push(`attribute ${name} (${type})`);
    } else if (!sameType(type, found.type)) report.problems.push(`attribute ${name} exists as ${found.type}, verify-hub writes ${type}: rename or delete it in Brevo (Contacts > Settings > Contact attributes)`);
    else report.existing.push(`attribute ${name}`);
  }
}

/**
 * The dedicated list imports go to (Brevo's import needs one): found by id, else by name, else made.
 * Adding a contact to a list starts the automations that watch that list, so this list must be one no
 * automation watches: it is verify-hub's own, named to say so.
 */
export async function ensureList(api: BrevoApi, name: string, knownId: number | undefined, report: SchemaReport): Promise<number> {
  if (knownId !== undefined && (await api.listExists(knownId))) {
    report.existing.push(`list "${name}" (${knownId})`);
    return knownId;
  }
  const found = await api.findList(name);
  if (found) {
    report.existing.push(`list "${name}" (${found.id})`);
    return found.id;
  }
  const id = await api.createList(name, await api.folderId());
  report.created.push(`list "${name}" (${id}): keep it out of every automation`);
  return id;
}
