import type { SchemaReport } from '@verify-hub/core';
import type { PersonField, PipedriveApi } from './api';
import { FIELD_NAMES, PERSON_FIELDS, RISK_OPTIONS, type FieldName } from './mapping';
import type { FieldKeys } from './settings';

/**
 * Finds verify-hub's person fields: by the key kept with the connection first (a field renamed in
 * Pipedrive keeps its key), else by name (the kept key is gone, or none was kept). `create` makes the
 * missing ones and the risk field's missing options; without it, what is missing is a problem.
 */
export async function resolveFields(api: PipedriveApi, known: FieldKeys | undefined, create: boolean): Promise<{ keys?: FieldKeys; report: SchemaReport }> {
  const report: SchemaReport = { created: [], existing: [], problems: [] };
  const fields = await api.personFields();
  const byKey = new Map(fields.map((f) => [f.field_code, f]));
  const found = {} as Record<FieldName, PersonField | undefined>;
  for (const name of FIELD_NAMES) {
    const spec = PERSON_FIELDS[name];
    const kept = known?.[name] ? byKey.get(known[name]) : undefined;
    let field = kept ?? fields.find((f) => f.field_name.trim().toLowerCase() === spec.name.toLowerCase() && f.field_type === spec.type);
    if (field) report.existing.push(field.field_name === spec.name ? spec.name : `${spec.name} (renamed "${field.field_name}" in Pipedrive)`);
    else if (create) {
      field = await api.addPersonField(spec.name, spec.type, name === 'risk' ? [...RISK_OPTIONS] : undefined);
      report.created.push(`person field "${spec.name}" (${spec.type})`);
    } else report.problems.push(`the person field "${spec.name}" is missing: run \`verify-hub pipedrive setup\``);
    found[name] = field;
  }
  const risk = found.risk;
  if (risk) {
    const missing = RISK_OPTIONS.filter((label) => !(risk.options ?? []).some((o) => o.label === label));
    if (missing.length && create) {
      await api.addPersonFieldOptions(risk.field_code, missing);
      report.created.push(`options ${missing.join(', ')} of "${PERSON_FIELDS.risk.name}"`);
      // The options' ids are only known from a fresh read.
      const again = (await api.personFields()).find((f) => f.field_code === risk.field_code);
      if (again) found.risk = again;
    } else if (missing.length) report.problems.push(`the "${PERSON_FIELDS.risk.name}" field lacks the options ${missing.join(', ')}: run \`verify-hub pipedrive setup\``);
  }
  if (FIELD_NAMES.some((name) => !found[name])) return { report };
  const riskOptions = Object.fromEntries((found.risk!.options ?? []).filter((o) => (RISK_OPTIONS as readonly string[]).includes(o.label)).map((o) => [o.label, o.id]));
  const keys: FieldKeys = { risk: found.risk!.field_code, score: found.score!.field_code, reason: found.reason!.field_code, checkedAt: found.checkedAt!.field_code, riskOptions };
  return { keys, report };
}
