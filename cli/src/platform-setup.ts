import { randomBytes } from 'node:crypto';
import { InputError, createLocalLimiter, type Config, type ConnectionRecord } from '@verify-hub/core';
import { DEFAULT_API_BASE, HubSpotAuthError, exchangeHubSpotCode, hubspotInstallUrl, privateAppConnection, type RateTier } from '@verify-hub/connector-hubspot';
import { MailchimpAuthError, MailchimpConnector, MailchimpNotFoundError, authorizeUrl, connectionFromOAuth, dataCenterFromApiKey, webhookPath } from '@verify-hub/connector-mailchimp';
import { PlatformRejectedError, type PlatformSetup, type PlatformSetups } from '@verify-hub/webhooks-in';

/**
 * How each platform is connected, in one place for both front doors: `verify-hub hubspot connect` /
 * `mailchimp connect` and the dashboard's connection form and OAuth sign-in (`verify-hub serve`
 * injects `platformSetups(config)` into the hub). Each function checks the key with the platform and
 * builds the connection record; the caller stores it. A refused key is a PlatformRejectedError naming
 * the field; no message ever holds the key.
 */

/** The platform's default API base is not stored, so a connection follows HUBSPOT_API_BASE if it is set later. */
function hubspotApiBase(config: Config): string | undefined {
  return config.HUBSPOT_API_BASE && config.HUBSPOT_API_BASE !== DEFAULT_API_BASE ? config.HUBSPOT_API_BASE : undefined;
}

/** A HubSpot private app's token as connection `hubspot-<portalId>` (the portal read with the token). */
export async function hubspotTokenConnection(config: Config, input: { accessToken: string; label?: string; rateTier?: RateTier }): Promise<ConnectionRecord> {
  try {
    const record = await privateAppConnection({ accessToken: input.accessToken, apiBase: config.HUBSPOT_API_BASE, label: input.label, rateTier: input.rateTier });
    if (record.settings?.apiBase === DEFAULT_API_BASE) delete record.settings.apiBase;
    return record;
  } catch (error) {
    if (error instanceof HubSpotAuthError) {
      throw new PlatformRejectedError('accessToken', "accessToken: HubSpot refused this token: copy the private app's access token again (Settings > Integrations > Private apps)");
    }
    throw error;
  }
}

/** Where Mailchimp posts an audience's changes: the secret is a path segment (Mailchimp signs nothing). */
export const mailchimpWebhookPath = webhookPath;

const newWebhookSecret = () => randomBytes(24).toString('base64url');

/**
 * A Mailchimp API key and audience as connection `mailchimp-<dc>-<list>`, with a new webhook secret.
 * The key and audience are checked by reading the audience's merge fields (read-only).
 */
export async function mailchimpKeyConnection(config: Config, input: { apiKey: string; listId: string; label?: string }): Promise<{ record: ConnectionRecord; webhookSecret: string }> {
  if (!/^[A-Za-z0-9]+$/.test(input.listId)) throw new InputError('listId', 'must be an audience id (letters and digits, as shown in Audience > Settings)');
  let dc: string;
  try {
    dc = dataCenterFromApiKey(input.apiKey);
  } catch {
    throw new InputError('apiKey', 'must end with the data center, like -us21 (copy the whole key from Account > Extras > API keys)');
  }
  const webhookSecret = newWebhookSecret();
  const record: ConnectionRecord = {
    id: `mailchimp-${dc}-${input.listId}`,
    platform: 'mailchimp',
    label: input.label ?? `Mailchimp ${dc} audience ${input.listId}`,
    createdAt: new Date().toISOString(),
    credentials: { apiKey: input.apiKey, webhookSecret },
    settings: { listId: input.listId, ...(config.MAILCHIMP_API_BASE ? { apiBase: config.MAILCHIMP_API_BASE } : {}) },
  };
  try {
    const connector = new MailchimpConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });
    await connector.api.mergeFields(input.listId);
  } catch (error) {
    if (error instanceof MailchimpAuthError) throw new PlatformRejectedError('apiKey', 'apiKey: Mailchimp refused this API key: check it in Account > Extras > API keys');
    if (error instanceof MailchimpNotFoundError) throw new PlatformRejectedError('listId', `listId: this Mailchimp account has no audience ${input.listId}: copy the Audience ID from Audience > Settings`);
    throw error;
  }
  return { record, webhookSecret };
}

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
  const { HUBSPOT_CLIENT_ID: clientId, HUBSPOT_CLIENT_SECRET: clientSecret } = config;
  if (clientId && clientSecret) {
    setup.oauth = {
      authorizeUrl: (state, redirectUri) => hubspotInstallUrl({ clientId, redirectUri, state }),
      exchange: (code, redirectUri) => exchangeHubSpotCode({ clientId, clientSecret, apiBase: hubspotApiBase(config), code, redirectUri }),
    };
  }
  return setup;
}

export function mailchimpSetup(config: Config): PlatformSetup {
  const setup: PlatformSetup = {
    keyFields: [
      { name: 'apiKey', label: 'API key', secret: true, help: 'In Mailchimp: Account > Extras > API keys; it ends with the data center, like -us21' },
      { name: 'listId', label: 'Audience ID', secret: false, help: 'In Mailchimp: Audience > Settings > Audience name and defaults' },
    ],
    renewWebhookUrl: (record) => {
      const webhookSecret = newWebhookSecret();
      return { record: { ...record, credentials: { ...record.credentials, webhookSecret } }, webhookUrl: mailchimpWebhookPath(record.id, webhookSecret) };
    },
    connectWithKey: async (input) => {
      const { record, webhookSecret } = await mailchimpKeyConnection(config, { apiKey: input.apiKey!, listId: input.listId!, label: input.label });
      return { record, webhookUrl: mailchimpWebhookPath(record.id, webhookSecret) };
    },
  };
  const { MAILCHIMP_CLIENT_ID: clientId, MAILCHIMP_CLIENT_SECRET: clientSecret, MAILCHIMP_LOGIN_BASE: loginBase } = config;
  if (clientId && clientSecret) {
    setup.oauth = {
      authorizeUrl: (state, redirectUri) => authorizeUrl({ clientId, redirectUri, loginBase }, state),
      exchange: async (code, redirectUri, extra) => {
        const record = await connectionFromOAuth({ clientId, clientSecret, redirectUri, loginBase }, code, { listId: extra.listId });
        // Like a key connection, it gets a webhook secret, so its audience's webhook can be registered.
        record.credentials.webhookSecret = newWebhookSecret();
        return record;
      },
    };
  }
  return setup;
}

/** Both platforms, as `verify-hub serve` hands them to the hub. */
export function platformSetups(config: Config): PlatformSetups {
  return { hubspot: hubspotSetup(config), mailchimp: mailchimpSetup(config) };
}
