import { definePlatform, platformConnector, type PlatformSetup } from '@verify-hub/core';
import { BrevoConnector, checkBrevoScope, oneOffConnector } from './connector';
import { brevoCommands } from './commands';
import { brevoEnvironment } from './environment';
import { brevoKeyConnection } from './key-connection';
import { BrevoSettings } from './settings';
import { brevoReceiver, storedReceiverConnections } from './webhook';
import { registerHubWebhook } from './webhook-registration';

/**
 * The most contacts one write takes: one import and one read-back call (`GET /contacts?ids=`, at most
 * a page of 1,000) per batch. The host writes a page in batches of it.
 */
export const WRITE_BATCH_SIZE = 1000;

/**
 * The key form: the API key (checked with `GET /account`) and the name it has in Brevo (its marketing
 * webhooks name the key behind a change, so the hub can ignore its own writes). Connecting also finds
 * or makes the dedicated list, so the receiver knows which list additions are the hub's imports.
 */
function brevoSetup(apiBase: string): PlatformSetup {
  return {
    keyFields: [
      { name: 'apiKey', label: 'API key', secret: true, help: 'In Brevo: Settings > SMTP & API > API keys > Generate a new API key' },
      { name: 'apiKeyName', label: 'API key name', secret: false, help: 'The name you gave the key in Brevo: events caused by the hub\'s own writes carry it and are ignored' },
    ],
    async connectWithKey(input) {
      const record = await brevoKeyConnection(apiBase, { apiKey: input.apiKey!, apiKeyName: input.apiKeyName, label: input.label });
      const listId = await oneOffConnector(record, apiBase).dedicatedList();
      return { record: { ...record, settings: { ...record.settings, listId } } };
    },
    registerWebhook: (record, hubUrl) => registerHubWebhook(record, hubUrl, apiBase),
  };
}

/** Brevo, as one platform module (docs/adding-a-platform.md). */
export const brevoPlatform = definePlatform({
  id: 'brevo',
  label: 'Brevo',
  settings: BrevoSettings,
  environment: brevoEnvironment,
  writeBatchSize: WRITE_BATCH_SIZE,
  connector: platformConnector(
    { settings: BrevoSettings, environment: brevoEnvironment },
    (connection, deps, { settings, environment }) => new BrevoConnector(connection, deps, settings, environment.BREVO_API_BASE),
    checkBrevoScope,
  ),
  card: {
    description: 'Contacts: verification results as EV_* contact attributes',
    scopes: [
      { scope: 'all', label: 'All contacts' },
      { scope: 'list:<id>', label: 'One list' },
      { scope: 'segment:<id>', label: 'One segment' },
      { scope: 'changed-since:<ISO time>', label: 'Contacts changed since a time' },
    ],
    defaultScope: 'all',
    webhookHelp: 'If the hub could not register it, add this address in Brevo (Settings > Webhooks > Marketing) for "Contact updated", "Contact added to list" and "Contact deleted", with token authentication and the token at the end of the address.',
  },
  reconnectAdvice: 'reconnect Brevo with a valid API key (`verify-hub brevo connect`, or Connections in the dashboard)',
  setup: ({ config }) => brevoSetup(brevoEnvironment.read(config).BREVO_API_BASE),
  commands: brevoCommands,
  webhook: ({ connections }) => ({
    paths: [{ path: '/:connection/:secret', methods: ['POST'] }],
    receiver: brevoReceiver(storedReceiverConnections(connections)),
  }),
});
