import { definePlatform, platformConnector, type ConnectionStore, type PlatformContext, type PlatformSetup } from '@verify-hub/core';
import { changesTask } from './changes-task';
import { klaviyoCommands } from './commands';
import { keyConnection, newFlowSecret, oauthApp, oauthConnection } from './connection';
import { CHUNK_SIZE, KlaviyoConnector } from './connector';
import { klaviyoEnvironment } from './environment';
import { authorizeUrl } from './oauth';
import { OAUTH_SCOPES } from './scopes';
import { resolveScope } from './scope';
import { KlaviyoSettings } from './settings';
import { flowWebhookRequest, klaviyoReceiver } from './webhook';

/**
 * The most profiles one write takes: a chunk (ten pages of 100) goes in one bulk import job, far inside
 * Klaviyo's 10,000 profiles and 5 MB per job (the writer still splits a larger batch by both).
 */
export const WRITE_BATCH_SIZE = CHUNK_SIZE;

/** Where the flow webhook posts: the same address for every connection; the body names the connection. */
export const FLOW_WEBHOOK_PATH = '/webhooks/klaviyo';

function klaviyoSetup(context: PlatformContext): PlatformSetup {
  const env = klaviyoEnvironment.read(context.config);
  const setup: PlatformSetup = {
    keyFields: [{ name: 'apiKey', label: 'Private API key', secret: true, help: 'In Klaviyo: Settings > API keys > Create private API key, with read access to Accounts, Lists, Segments and Profiles, and full access to Profiles and Lists' }],
    async connectWithKey(input) {
      const { record } = await keyConnection(env, { apiKey: input.apiKey ?? '', label: input.label });
      return { record, webhookUrl: FLOW_WEBHOOK_PATH, webhookRequest: flowWebhookRequest(record) };
    },
    renewWebhookUrl: (record) => {
      const renewed = { ...record, credentials: { ...record.credentials, flowSecret: newFlowSecret() } };
      return { record: renewed, webhookUrl: FLOW_WEBHOOK_PATH, webhookRequest: flowWebhookRequest(renewed) };
    },
  };
  const app = oauthApp(env);
  if (app) {
    setup.oauth = {
      authorizeUrl: (state, redirectUri) => authorizeUrl(app, OAUTH_SCOPES, state, redirectUri),
      exchange: async (code, redirectUri, _choices, state) => (await oauthConnection(app, env, code, state, redirectUri)).record,
    };
  }
  return setup;
}

/** A connection's flow secret, kept sealed with its credentials. */
const flowSecrets = (connections: ConnectionStore | undefined) => async (connectionId: string) => {
  const connection = await connections?.get(connectionId);
  const secret = connection?.platform === 'klaviyo' ? connection.credentials.flowSecret : undefined;
  return typeof secret === 'string' && secret ? secret : undefined;
};

/** Klaviyo, as one platform module (docs/adding-a-platform.md). */
export const klaviyoPlatform = definePlatform({
  id: 'klaviyo',
  label: 'Klaviyo',
  settings: KlaviyoSettings,
  environment: klaviyoEnvironment,
  writeBatchSize: WRITE_BATCH_SIZE,
  connector: platformConnector(
    { settings: KlaviyoSettings, environment: klaviyoEnvironment },
    (connection, deps, { settings, environment }) => new KlaviyoConnector(connection, deps, settings, environment),
    (scope) => void resolveScope(scope),
  ),
  card: {
    description: 'Profiles: verification results as ev_* custom properties (never consent)',
    scopes: [
      { scope: 'all', label: 'All profiles' },
      { scope: 'list:<id>', label: 'The members of a list' },
      { scope: 'segment:<id>', label: 'The members of a segment' },
      { scope: 'changed-since:<ISO time>', label: 'Profiles changed since a time' },
    ],
    defaultScope: 'all',
    webhookHelp:
      'In Klaviyo, make a flow triggered when someone joins your list, with a Webhook action posting to this address, with the header and the JSON body shown here (`verify-hub klaviyo setup --connection <id>` prints them too). Profiles changed otherwise are read every minute.',
  },
  reconnectAdvice: 'reconnect Klaviyo (`verify-hub klaviyo connect`, or Connections in the dashboard)',
  setup: klaviyoSetup,
  commands: klaviyoCommands,
  webhook: ({ connections }) => ({ receiver: klaviyoReceiver(flowSecrets(connections)) }),
  tasks: (context) => (context.host ? [changesTask(context, context.host)] : []),
});
