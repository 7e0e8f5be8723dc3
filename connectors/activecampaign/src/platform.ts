import { definePlatform, platformConnector, type ConnectionStore, type PlatformSetup, type WebhookReceiver } from '@verify-hub/core';
import { BULK_IMPORT_LIMIT } from './bulk-import';
import { activecampaignCommands } from './commands';
import { connectionFromToken, newWebhookSecret, oneOffClient } from './connection';
import { ActivecampaignConnector } from './connector';
import { activecampaignEnvironment, type ActivecampaignEnvironment } from './environment';
import { resolveScope } from './scope';
import { ActivecampaignSettings } from './settings';
import { parseDelivery, webhookPath } from './webhook-delivery';
import { registerHubWebhook } from './webhook-registration';

/** The most contacts one write takes: a bulk import's maximum. The host writes a page in batches of it. */
export const WRITE_BATCH_SIZE = BULK_IMPORT_LIMIT;

/** The key form: the account's API URL and its API token, both from Settings > Developer. */
function activecampaignSetup(environment: ActivecampaignEnvironment): PlatformSetup {
  return {
    keyFields: [
      { name: 'apiUrl', label: 'API URL', secret: false, help: 'In ActiveCampaign: Settings > Developer, like https://youraccount.api-us1.com' },
      { name: 'apiToken', label: 'API token', secret: true, help: 'In ActiveCampaign: Settings > Developer (the Key under API Access)' },
    ],
    async connectWithKey(input) {
      const { record, webhookSecret } = await connectionFromToken(environment, input);
      return { record, webhookUrl: webhookPath(record.id, webhookSecret) };
    },
    registerWebhook: (record, hubUrl) => registerHubWebhook(oneOffClient(record, environment), record, hubUrl),
    renewWebhookUrl: (record) => {
      const webhookSecret = newWebhookSecret();
      return { record: { ...record, credentials: { ...record.credentials, webhookSecret } }, webhookUrl: webhookPath(record.id, webhookSecret) };
    },
  };
}

/** The receiver's per-connection secret: kept sealed with the connection's credentials. */
function webhookSecretOf(connections: ConnectionStore | undefined) {
  return async (connectionId: string): Promise<string> => {
    const connection = await connections?.get(connectionId);
    const secret = connection?.platform === 'activecampaign' ? connection.credentials.webhookSecret : undefined;
    return typeof secret === 'string' ? secret : '';
  };
}

/**
 * POST /webhooks/activecampaign/:connection/:secret: deliveries are unsigned, so the path secret is the
 * check. An unknown connection gets the same 401 as a wrong secret: the route does not tell which exist.
 */
export function activecampaignReceiver(secretFor: (connectionId: string) => Promise<string>): WebhookReceiver {
  return {
    receive: async (request, route, now) => parseDelivery(request, route.secret ?? '', route.connection ? await secretFor(route.connection) : '', route.connection ?? '', now),
    connectionIdFor: (event, route) => route.connection ?? `activecampaign-${event.accountId}`,
  };
}

/** ActiveCampaign, as one platform module (docs/adding-a-platform.md). */
export const activecampaignPlatform = definePlatform({
  id: 'activecampaign',
  label: 'ActiveCampaign',
  settings: ActivecampaignSettings,
  environment: activecampaignEnvironment,
  writeBatchSize: WRITE_BATCH_SIZE,
  connector: platformConnector(
    { settings: ActivecampaignSettings, environment: activecampaignEnvironment },
    (connection, deps, { settings, environment }) => new ActivecampaignConnector(connection, deps, settings, environment),
    (scope) => void resolveScope(scope),
  ),
  card: {
    description: 'Contacts: verification results as EV custom fields and one ev-<risk> tag; list subscriptions never changed',
    scopes: [
      { scope: 'all', label: 'All contacts' },
      { scope: 'list:<id>', label: 'The contacts of one list' },
      { scope: 'changed-since:<ISO time or span like 26h>', label: 'Contacts changed since a time' },
    ],
    defaultScope: 'all',
    webhookHelp:
      'If the hub could not register it, add this address in ActiveCampaign (Settings > Developer > Manage Webhooks) for "Contact subscribes" and "Contact updated", initiated by a contact, an admin user or the system, but not "by the API", so the hub\'s own writes never come back.',
  },
  reconnectAdvice: 'reconnect ActiveCampaign with a current API token (`verify-hub activecampaign connect`, or Connections in the dashboard)',
  setup: ({ config }) => activecampaignSetup(activecampaignEnvironment.read(config)),
  commands: activecampaignCommands,
  webhook: ({ connections }) => ({
    paths: [{ path: '/:connection/:secret', methods: ['POST'] }],
    receiver: activecampaignReceiver(webhookSecretOf(connections)),
  }),
});
