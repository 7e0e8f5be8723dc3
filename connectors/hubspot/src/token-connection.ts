import { PlatformRejectedError, type Config, type ConnectionRecord, type PlatformSetup } from '@verify-hub/core';
import { hubspotEnvironment } from './environment';
import { HubSpotAuthError } from './errors';
import { exchangeHubSpotCode, hubspotInstallUrl, privateAppConnection } from './oauth';
import { DEFAULT_API_BASE, type RateTier } from './settings';

/** The platform's default API base is not stored, so a connection follows HUBSPOT_API_BASE if it is set later. */
function hubspotApiBase(config: Config): string | undefined {
  const { HUBSPOT_API_BASE: apiBase } = hubspotEnvironment.read(config);
  return apiBase !== DEFAULT_API_BASE ? apiBase : undefined;
}

/** A HubSpot private app's token as connection `hubspot-<portalId>` (the portal read with the token). */
export async function hubspotTokenConnection(config: Config, input: { accessToken: string; label?: string; rateTier?: RateTier }): Promise<ConnectionRecord> {
  try {
    const record = await privateAppConnection({ accessToken: input.accessToken, apiBase: hubspotEnvironment.read(config).HUBSPOT_API_BASE, label: input.label, rateTier: input.rateTier });
    if (record.settings?.apiBase === DEFAULT_API_BASE) delete record.settings.apiBase;
    return record;
  } catch (error) {
    if (error instanceof HubSpotAuthError) {
      throw new PlatformRejectedError('accessToken', "accessToken: HubSpot refused this token: copy the private app's access token again (Settings > Integrations > Private apps)");
    }
    throw error;
  }
}

/** The key form (a private app's token) and, when the public app is configured, the OAuth sign-in. */
export function hubspotSetup(config: Config): PlatformSetup {
  const setup: PlatformSetup = {
    keyFields: [
      {
        name: 'accessToken',
        label: 'Private app token',
        secret: true,
        help: 'In HubSpot: Settings > Integrations > Private apps > your app > Access token (scopes: crm.objects.contacts.read and .write, crm.schemas.contacts.read and .write, crm.lists.read)',
      },
    ],
    connectWithKey: async (input) => ({ record: await hubspotTokenConnection(config, { accessToken: input.accessToken!, label: input.label }) }),
  };
  const { HUBSPOT_CLIENT_ID: clientId, HUBSPOT_CLIENT_SECRET: clientSecret } = hubspotEnvironment.read(config);
  if (clientId && clientSecret) {
    setup.oauth = {
      authorizeUrl: (state, redirectUri) => hubspotInstallUrl({ clientId, redirectUri, state }),
      exchange: (code, redirectUri) => exchangeHubSpotCode({ clientId, clientSecret, apiBase: hubspotApiBase(config), code, redirectUri }),
    };
  }
  return setup;
}
