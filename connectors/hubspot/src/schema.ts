import { z } from 'zod';
import type { SchemaReport } from '@verify-hub/core';
import { hubspotPropertyDefinitions, type HubSpotPropertyDefinition } from './property-mapping';
import { HubSpotApiError, HubSpotAuthError } from './errors';
import type { HubSpotApis } from './client';
import type { RequestRunner } from './request-runner';
import type { ResolvedSettings } from './settings';

const LimitsSchema = z.object({
  byObjectType: z.array(z.looseObject({ objectTypeId: z.string(), limit: z.number(), usage: z.number() })).default([]),
  overallLimit: z.number().optional(),
  overallUsage: z.number().optional(),
});

const CONTACT_OBJECT_TYPE = '0-1';

const isConflict = (e: unknown) => e instanceof HubSpotApiError && e.status === 409;

/**
 * The custom-property room the portal has left for contacts, from the limits-tracking API; undefined
 * when the portal does not expose it (older tiers, or the app lacks the scope): creation then reports
 * any limit error HubSpot gives.
 */
async function propertyRoom(runner: RequestRunner, apis: () => HubSpotApis): Promise<{ room: number; usage: number; limit: number } | undefined> {
  try {
    const raw = await runner.run('default', () => apis().getJson('/crm/v3/limits/custom-properties'));
    const limits = LimitsSchema.parse(raw);
    const contacts = limits.byObjectType.find((o) => o.objectTypeId === CONTACT_OBJECT_TYPE);
    const limit = contacts?.limit ?? limits.overallLimit;
    const usage = contacts?.usage ?? limits.overallUsage;
    if (limit === undefined || usage === undefined) return undefined;
    return { room: limit - usage, usage, limit };
  } catch (error) {
    if (error instanceof HubSpotAuthError && error.status === 403) return undefined;
    if (error instanceof HubSpotApiError && error.status === 404) return undefined;
    if (error instanceof z.ZodError) return undefined;
    throw error;
  }
}

/**
 * Creates the property group and the properties of DESIGN.md §6, idempotently: what exists with the
 * right type is reported as existing; a property of another type under our name is a problem (never
 * changed or duplicated); nothing is created when the portal's custom-property limit has no room for
 * all the missing ones.
 */
export async function ensureHubSpotSchema(runner: RequestRunner, apis: () => HubSpotApis, settings: ResolvedSettings): Promise<SchemaReport> {
  const report: SchemaReport = { created: [], existing: [], problems: [] };
  const definitions = hubspotPropertyDefinitions(settings.names, settings.group.name);

  const groups = await runner.run('default', () => apis().propertyGroups.getAll('contacts'));
  const hasGroup = groups.results.some((g) => g.name === settings.group.name);
  const properties = await runner.run('default', () => apis().propertiesCore.getAll('contacts', false));
  const byName = new Map(properties.results.map((p) => [p.name, p]));

  const missing: HubSpotPropertyDefinition[] = [];
  for (const def of definitions) {
    const found = byName.get(def.name);
    if (!found) missing.push(def);
    else if (found.type !== def.type) {
      report.problems.push(`property ${def.name} already exists with type ${found.type}/${found.fieldType}, but verify-hub writes ${def.type}/${def.fieldType}: rename ours in the connection's settings.propertyNames, or change or delete that property in HubSpot`);
    } else {
      const have = new Set((found.options ?? []).map((o) => o.value));
      const lacking = (def.options ?? []).map((o) => o.value).filter((v) => !have.has(v));
      if (def.type === 'enumeration' && lacking.length) {
        report.problems.push(`property ${def.name} exists but lacks the option(s) ${lacking.join(', ')} that verify-hub writes: add them in HubSpot, or rename ours in settings.propertyNames`);
      } else report.existing.push(def.name);
    }
  }
  if (hasGroup) report.existing.unshift(`group:${settings.group.name}`);

  if (missing.length > 0) {
    const room = await propertyRoom(runner, apis);
    if (room && room.room < missing.length) {
      report.problems.push(`custom property limit: ${room.usage} of ${room.limit} contact properties used, ${missing.length} more needed (${missing.map((d) => d.name).join(', ')}); free some room in HubSpot, then run setup again`);
      return report;
    }
  }

  if (!hasGroup && (missing.length > 0 || report.existing.length > 0)) {
    try {
      await runner.run('default', () => apis().propertyGroups.create('contacts', { name: settings.group.name, label: settings.group.label, displayOrder: -1 }));
      report.created.push(`group:${settings.group.name}`);
    } catch (error) {
      if (!isConflict(error)) throw error;
      report.existing.unshift(`group:${settings.group.name}`);
    }
  }

  for (const def of missing) {
    try {
      await runner.run('default', () => apis().propertiesCore.create('contacts', {
        name: def.name, label: def.label, description: def.description, groupName: def.groupName,
        type: def.type as never, fieldType: def.fieldType as never, options: def.options, formField: false,
      }));
      report.created.push(def.name);
    } catch (error) {
      // Another worker (or a person) created it between our read and our create.
      if (!isConflict(error)) throw error;
      report.existing.push(def.name);
    }
  }
  return report;
}
