import { z } from 'zod';
import { InputError, validSettings, type ConnectionRecord } from '@verify-hub/core';
import { DEFAULT_HUBSPOT_GROUP, DEFAULT_HUBSPOT_PROPERTY_NAMES, type HubSpotPropertyNames } from './property-mapping';

/** A private app's token, or an OAuth install's tokens (`expiresAt` epoch ms). */
export const HubSpotCredentialsSchema = z.object({
  accessToken: z.string().min(1, 'is required'),
  refreshToken: z.string().min(1).optional(),
  expiresAt: z.coerce.number().int().positive().optional(),
});
export type HubSpotCredentials = z.infer<typeof HubSpotCredentialsSchema>;

/**
 * HubSpot's per-app 10-second limits: private apps 100 (Free/Starter) or 190 (Professional/Enterprise),
 * public OAuth apps 110 per installing portal.
 */
export const RATE_TIERS = { 'private-standard': 100, 'private-pro': 190, oauth: 110 } as const;
export type RateTier = keyof typeof RATE_TIERS;

const propertyName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be a HubSpot internal name (lower case, digits, _)');

export const HubSpotSettingsSchema = z.object({
  portalId: z.union([z.string(), z.number()]).transform(String).optional(),
  /** IANA zone of the portal (its daily limit resets at local midnight). */
  timeZone: z.string().optional(),
  apiBase: z.url().optional(),
  rateTier: z.enum(Object.keys(RATE_TIERS) as [RateTier, ...RateTier[]]).optional(),
  /** Overrides the tier: calls per 10-second window. */
  requestsPerTenSeconds: z.number().int().positive().optional(),
  searchPerSecond: z.number().int().positive().optional(),
  /** Stop (pause the run) when the daily remaining count reaches this, leaving room for the portal's other apps. */
  dailyReserve: z.number().int().min(0).optional(),
  /** How contact events arrive: HubSpot's push webhooks (default), or the webhooks journal the hub reads (no public URL needed). */
  events: z.enum(['webhooks', 'journal']).optional(),
  groupName: propertyName.optional(),
  groupLabel: z.string().min(1).optional(),
  propertyNames: z.object(Object.fromEntries(Object.keys(DEFAULT_HUBSPOT_PROPERTY_NAMES).map((k) => [k, propertyName.optional()])) as Record<keyof HubSpotPropertyNames, z.ZodOptional<typeof propertyName>>).partial().optional(),
});
export type HubSpotSettings = z.infer<typeof HubSpotSettingsSchema>;

export const DEFAULT_API_BASE = 'https://api.hubapi.com';

export interface ResolvedSettings {
  portalId: string;
  timeZone?: string;
  apiBase: string;
  isOAuth: boolean;
  requestsPerTenSeconds: number;
  searchPerSecond: number;
  dailyReserve: number;
  group: { name: string; label: string };
  names: HubSpotPropertyNames;
}

/**
 * A stored connection resolved: its credentials validated (a clear error naming the field, never echoing
 * a token), its settings as the host validated them (`ConnectorDeps.settings`), or validated here when
 * there is no host (a test, a one-off command).
 */
export function resolveConnection(
  connection: ConnectionRecord,
  env: { HUBSPOT_API_BASE?: string } = {},
  s: HubSpotSettings = validSettings(HubSpotSettingsSchema, connection.settings),
): { credentials: HubSpotCredentials; settings: ResolvedSettings } {
  const credentials = validSettings(HubSpotCredentialsSchema, connection.credentials, 'credentials');
  const portalId = s.portalId ?? /^hubspot-(\d+)$/.exec(connection.id)?.[1];
  if (!portalId) throw new InputError('settings.portalId', `is required (or a connection id of the form hubspot-<portalId>, got ${connection.id})`);
  const isOAuth = credentials.refreshToken !== undefined;
  const tier: RateTier = s.rateTier ?? (isOAuth ? 'oauth' : 'private-standard');
  return {
    credentials,
    settings: {
      portalId,
      timeZone: s.timeZone,
      apiBase: (s.apiBase ?? env.HUBSPOT_API_BASE ?? DEFAULT_API_BASE).replace(/\/+$/, ''),
      isOAuth,
      requestsPerTenSeconds: s.requestsPerTenSeconds ?? RATE_TIERS[tier],
      searchPerSecond: s.searchPerSecond ?? 5,
      dailyReserve: s.dailyReserve ?? 0,
      group: { name: s.groupName ?? DEFAULT_HUBSPOT_GROUP.name, label: s.groupLabel ?? DEFAULT_HUBSPOT_GROUP.label },
      names: { ...DEFAULT_HUBSPOT_PROPERTY_NAMES, ...(Object.fromEntries(Object.entries(s.propertyNames ?? {}).filter(([, v]) => v !== undefined)) as Partial<HubSpotPropertyNames>) },
    },
  };
}

/** The connection id of a portal: one connection per portal. */
export function hubspotConnectionId(portalId: string | number): string {
  return `hubspot-${portalId}`;
}
