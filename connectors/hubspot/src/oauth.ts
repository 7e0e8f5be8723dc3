import { z } from 'zod';
import { InputError, type ConnectionRecord } from '@verify-hub/core';
import { buildHubSpotApis } from './client';
import { HubSpotApiError, HubSpotAuthError, hubspotNetworkError } from './errors';
import { DEFAULT_API_BASE, hubspotConnectionId, type HubSpotCredentials, type RateTier } from './settings';

/** What the connector needs: read and write contacts, create properties, read lists, complete the workflow action's callbacks (`automation`). */
export const DEFAULT_SCOPES = [
  'oauth',
  'automation',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.schemas.contacts.read',
  'crm.schemas.contacts.write',
  'crm.lists.read',
] as const;

/** Refresh this long before the access token expires (HubSpot's last 30 minutes). */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export interface InstallUrlOptions {
  clientId: string;
  redirectUri: string;
  scopes?: readonly string[];
  optionalScopes?: readonly string[];
  /** An unguessable value the callback checks (CSRF). */
  state?: string;
  /** Where HubSpot's consent screen lives (default https://app.hubspot.com; EU portals use app-eu1). */
  authorizeBase?: string;
}

/** The URL a HubSpot admin opens to install the public app on a portal. */
export function hubspotInstallUrl(options: InstallUrlOptions): string {
  if (!options.clientId) throw new InputError('clientId', 'is required (HUBSPOT_CLIENT_ID)');
  if (!options.redirectUri) throw new InputError('redirectUri', 'is required');
  const url = new URL('/oauth/authorize', options.authorizeBase ?? 'https://app.hubspot.com');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('scope', (options.scopes ?? DEFAULT_SCOPES).join(' '));
  if (options.optionalScopes?.length) url.searchParams.set('optional_scope', options.optionalScopes.join(' '));
  if (options.state) url.searchParams.set('state', options.state);
  return url.toString();
}

export interface OAuthAppOptions {
  clientId: string;
  clientSecret: string;
  apiBase?: string;
  now?: () => number;
}

const AccountDetailsSchema = z.looseObject({
  portalId: z.union([z.number(), z.string()]).transform(String),
  timeZone: z.string().optional(),
});

/** The portal a token belongs to, and its time zone (its daily limit resets at local midnight). */
export async function fetchAccountDetails(accessToken: string, apiBase = DEFAULT_API_BASE): Promise<{ portalId: string; timeZone?: string }> {
  const raw = await buildHubSpotApis({ accessToken, basePath: apiBase }).getJson('/account-info/v3/details');
  const parsed = AccountDetailsSchema.safeParse(raw);
  if (!parsed.success) throw new HubSpotApiError('HubSpot account details came back without a portalId', { retryable: false });
  return parsed.data;
}

function tokenCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  return call().catch((caught: unknown) => {
    const error = hubspotNetworkError(caught);
    // A refused refresh token is not taken for an uninstall: HubSpot's published token error has no
    // member saying why. Uninstalls come from the published app lifecycle event (webhook or journal).
    // HubSpot answers a bad code, redirect URI or refresh token with 400: for us that is an auth failure.
    if (error instanceof HubSpotApiError && error.status === 400) throw new HubSpotAuthError(`HubSpot refused the ${what}; reinstall the app on the portal (${error.message})`, { status: 400 });
    throw error;
  });
}

/** Exchanges the callback's `code` for tokens, and builds the portal's connection record (`hubspot-<portalId>`). */
export async function exchangeHubSpotCode(options: OAuthAppOptions & { code: string; redirectUri: string; label?: string; rateTier?: RateTier }): Promise<ConnectionRecord> {
  if (!options.code) throw new InputError('code', 'is required');
  const now = options.now ?? Date.now;
  const apiBase = options.apiBase ?? DEFAULT_API_BASE;
  const tokens = await tokenCall('authorization code', () => buildHubSpotApis({ basePath: apiBase }).oauthTokens.create('authorization_code', options.code, options.redirectUri, options.clientId, options.clientSecret));
  const credentials: HubSpotCredentials = { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: now() + tokens.expiresIn * 1000 };
  const account = await fetchAccountDetails(tokens.accessToken, apiBase);
  return {
    id: hubspotConnectionId(account.portalId),
    platform: 'hubspot',
    label: options.label ?? `HubSpot portal ${account.portalId}`,
    createdAt: new Date(now()).toISOString(),
    credentials,
    settings: { portalId: account.portalId, ...(account.timeZone ? { timeZone: account.timeZone } : {}), ...(options.apiBase ? { apiBase } : {}), rateTier: options.rateTier ?? 'oauth' },
  };
}

/** A new access token from the refresh token (HubSpot keeps the same refresh token). */
export async function refreshHubSpotToken(options: OAuthAppOptions & { refreshToken: string }): Promise<HubSpotCredentials> {
  const now = options.now ?? Date.now;
  const tokens = await tokenCall('refresh token', () => buildHubSpotApis({ basePath: options.apiBase ?? DEFAULT_API_BASE }).oauthTokens.create('refresh_token', undefined, undefined, options.clientId, options.clientSecret, options.refreshToken));
  return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken || options.refreshToken, expiresAt: now() + tokens.expiresIn * 1000 };
}

/** Whether OAuth credentials should be refreshed now (expired or within the margin). */
export function needsRefresh(credentials: HubSpotCredentials, now = Date.now()): boolean {
  return credentials.refreshToken !== undefined && credentials.expiresAt !== undefined && credentials.expiresAt - now <= REFRESH_MARGIN_MS;
}

/** A private app's token as a connection record (its portal read from the account details). */
export async function privateAppConnection(options: { accessToken: string; apiBase?: string; label?: string; rateTier?: RateTier; now?: () => number }): Promise<ConnectionRecord> {
  if (!options.accessToken) throw new InputError('accessToken', 'is required (HUBSPOT_ACCESS_TOKEN)');
  const now = options.now ?? Date.now;
  const account = await fetchAccountDetails(options.accessToken, options.apiBase);
  return {
    id: hubspotConnectionId(account.portalId),
    platform: 'hubspot',
    label: options.label ?? `HubSpot portal ${account.portalId}`,
    createdAt: new Date(now()).toISOString(),
    credentials: { accessToken: options.accessToken },
    settings: { portalId: account.portalId, ...(account.timeZone ? { timeZone: account.timeZone } : {}), ...(options.apiBase ? { apiBase: options.apiBase } : {}), rateTier: options.rateTier ?? 'private-standard' },
  };
}
