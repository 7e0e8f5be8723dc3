import type { Connection } from 'jsforce';
import { z } from 'zod';
import type { SchemaReport } from '@verify-hub/core';
import { SalesforceErrors } from './errors';
import { FIELD_API_NAMES, fieldDefinitions, type FieldDefinition } from './mapping';
import type { SalesforceSession } from './session';
import { SALESFORCE_OBJECTS } from './settings';

/** The permission set granting the API user read and edit on every verify-hub field (field-level security). */
export const PERMISSION_SET = { name: 'Verify_Hub_Fields', label: 'verify-hub fields' };
/** The Metadata API's most components in one createMetadata or readMetadata call. */
const METADATA_BATCH = 10;

const Describe = z.looseObject({ fields: z.array(z.looseObject({ name: z.string(), updateable: z.boolean().optional() })) });
const QueryIds = z.looseObject({ records: z.array(z.looseObject({ Id: z.string() })) });

/** The CustomField metadata of one definition on one object. */
function customField(object: string, field: FieldDefinition): Record<string, unknown> {
  const base = { fullName: `${object}.${field.name}`, label: field.label, description: field.description, inlineHelpText: field.description };
  switch (field.type) {
    case 'Picklist':
      return { ...base, type: 'Picklist', valueSet: { restricted: true, valueSetDefinition: { sorted: false, value: field.values!.map((v) => ({ fullName: v.value, label: v.label, default: false })) } } };
    case 'Number':
      return { ...base, type: 'Number', precision: 3, scale: 0 };
    case 'Text':
      return { ...base, type: 'Text', length: 255 };
    default:
      return { ...base, type: 'DateTime' };
  }
}

const chunks = <T>(items: T[], size: number) => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
const arrayOf = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const problemOf = (result: { fullName?: string; errors?: unknown }) => arrayOf(result.errors as { message?: string } | { message?: string }[]).map((e) => e.message).join('; ');

/**
 * Creates what verify-hub writes into, idempotently: the nine custom fields on Contact and on Lead
 * (Metadata API `createMetadata`), and the permission set granting the API user read and edit on them
 * (`FieldPermissions`), assigned to that user. A field created through the API has no field-level
 * security, so without the permission set it is invisible to the user's queries and writes: the
 * classic failure this guards against. A run calls this first: when every field is already visible to
 * the user (two describe calls) nothing else is asked.
 */
export async function ensureSalesforceSchema(session: SalesforceSession): Promise<SchemaReport> {
  const wanted = SALESFORCE_OBJECTS.flatMap((object) => FIELD_API_NAMES.map((name) => `${object}.${name}`));
  if ((await visibleFields(session)).size === wanted.length) return { created: [], existing: [...wanted, `permission set ${PERMISSION_SET.name}`], problems: [] };
  const report: SchemaReport = { created: [], existing: [], problems: [] };
  await session.call(async (c) => {
    await ensureFields(c, report);
    const fieldsReady = report.problems.length === 0;
    if (fieldsReady) await ensurePermissionSet(c, wanted, report);
  });
  if (report.problems.length === 0) {
    const assigned = await ensureAssignment(session);
    (assigned ? report.created : report.existing).push(`permission set ${PERMISSION_SET.name} assigned to the API user ${session.settings.userId}`);
    const visible = await visibleFields(session);
    const hidden = wanted.filter((name) => !visible.has(name));
    if (hidden.length) report.problems.push(`still not visible to the API user after the permission set was assigned: ${hidden.join(', ')} (check the user's licence and object access to Contact and Lead)`);
  }
  return report;
}

/** Our fields the API user can see and edit, as `Object.Field`: describe lists only fields the user has field-level security for. */
async function visibleFields(session: SalesforceSession): Promise<Set<string>> {
  const visible = new Set<string>();
  for (const object of SALESFORCE_OBJECTS) {
    const described = Describe.safeParse(await session.call((c) => c.request(`${session.dataPath}/sobjects/${object}/describe`)));
    if (!described.success) throw new SalesforceErrors.TransientError(`Salesforce answered the ${object} describe without its fields`);
    for (const field of described.data.fields) if (FIELD_API_NAMES.includes(field.name) && field.updateable !== false) visible.add(`${object}.${field.name}`);
  }
  return visible;
}

async function ensureFields(c: Connection, report: SchemaReport): Promise<void> {
  const definitions = SALESFORCE_OBJECTS.flatMap((object) => fieldDefinitions().map((field) => customField(object, field)));
  const existing = new Set<string>();
  for (const part of chunks(definitions.map((d) => String(d.fullName)), METADATA_BATCH)) {
    // readMetadata answers a record with no fullName for a name it does not have.
    for (const record of arrayOf(await c.metadata.read('CustomField', part))) if (record?.fullName) existing.add(record.fullName);
  }
  const missing = definitions.filter((d) => !existing.has(String(d.fullName)));
  report.existing.push(...[...existing].sort());
  for (const part of chunks(missing, METADATA_BATCH)) {
    for (const result of arrayOf(await c.metadata.create('CustomField', part as never))) {
      if (result.success) report.created.push(`field ${result.fullName}`);
      else report.problems.push(`field ${result.fullName}: ${problemOf(result)}`);
    }
  }
}

async function ensurePermissionSet(c: Connection, wanted: string[], report: SchemaReport): Promise<void> {
  // Read as a list: a missing component comes back as a record without a fullName.
  const [current] = arrayOf((await c.metadata.read('PermissionSet', [PERMISSION_SET.name])) as { fullName?: string; fieldPermissions?: unknown }[]);
  const granted = new Set(arrayOf(current?.fieldPermissions as { field: string; editable: unknown; readable: unknown }[] | undefined).filter((p) => String(p.editable) === 'true' && String(p.readable) === 'true').map((p) => p.field));
  const missing = wanted.filter((field) => !granted.has(field));
  if (current?.fullName && missing.length === 0) {
    report.existing.push(`permission set ${PERMISSION_SET.name}`);
    return;
  }
  const permissionSet = {
    fullName: PERMISSION_SET.name,
    label: PERMISSION_SET.label,
    description: 'Read and edit on the verify-hub email verification fields of Contact and Lead (field-level security)',
    fieldPermissions: wanted.map((field) => ({ field, readable: true, editable: true })),
  };
  const [result] = arrayOf(await c.metadata.upsert('PermissionSet', [permissionSet] as never));
  if (!result?.success) report.problems.push(`permission set ${PERMISSION_SET.name}: ${result ? problemOf(result) : 'no answer'}`);
  else report.created.push(current?.fullName ? `field permissions in ${PERMISSION_SET.name}: ${missing.join(', ')}` : `permission set ${PERMISSION_SET.name} (read and edit on ${wanted.length} fields)`);
}

/** Assigns the permission set to the API user unless it already is; true when it assigned it now. */
async function ensureAssignment(session: SalesforceSession): Promise<boolean> {
  const userId = session.settings.userId;
  const query = (soql: string) => session.call((c) => c.request(`${session.dataPath}/query?${new URLSearchParams({ q: soql }).toString()}`)).then((a) => QueryIds.parse(a).records);
  const assigned = await query(`SELECT Id FROM PermissionSetAssignment WHERE AssigneeId = '${userId}' AND PermissionSet.Name = '${PERMISSION_SET.name}'`);
  if (assigned.length) return false;
  const [set] = await query(`SELECT Id FROM PermissionSet WHERE Name = '${PERMISSION_SET.name}'`);
  if (!set) throw new SalesforceErrors.TransientError(`the permission set ${PERMISSION_SET.name} was created but Salesforce does not list it yet: run setup again`);
  await session.call((c) => c.requestPost(`${session.dataPath}/sobjects/PermissionSetAssignment`, { AssigneeId: userId, PermissionSetId: set.Id }));
  return true;
}
