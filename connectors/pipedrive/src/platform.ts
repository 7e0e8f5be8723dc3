import { definePlatform, type PlatformSetup } from '@verify-hub/core';
import { pipedriveCommands } from './commands';
import { PipedriveConnector } from './connector';
import { authorizeUrl, oauthConnection, tokenConnection } from './connection';
import { pipedriveEnvironment, type PipedriveEnvironment } from './environment';
import { setUpConnection } from './open';
import { panelRoutes } from './panel';
import { checkPipedriveScope } from './scope';
import { PipedriveSettings } from './settings';
import { pipedriveReceiver } from './webhook';
import { webhookUrl } from './webhook-registration';
import { platformConnector } from '@verify-hub/core';

/**
 * The persons one `write` call handles: the host writes a page in batches of it. Pipedrive has no
 * bulk update, so a batch is this many PATCHes, a few at a time, paced to the burst window.
 */
export const WRITE_BATCH_SIZE = 50;

/** The connect forms: an API token (checked with /users/me), and the Marketplace app's OAuth when configured. */
function pipedriveSetup(env: PipedriveEnvironment): PlatformSetup {
  return {
    keyFields: [{ name: 'apiToken', label: 'API token', secret: true, help: 'In Pipedrive: Personal preferences > API' }],
    connectWithKey: async (input) => ({ record: await tokenConnection(env, { apiToken: input.apiToken ?? '', ...(input.label ? { label: input.label } : {}) }) }),
    // After a connect: the person fields made and the webhooks registered, kept with the connection.
    async registerWebhook(record, hubUrl) {
      try {
        const { record: updated } = await setUpConnection(record, env, hubUrl);
        return { url: webhookUrl(hubUrl), registered: true, record: updated };
      } catch (error) {
        return { url: webhookUrl(hubUrl), registered: false, problem: `Pipedrive refused the setup (${(error as Error).message})` };
      }
    },
    ...(env.PIPEDRIVE_CLIENT_ID && env.PIPEDRIVE_CLIENT_SECRET
      ? { oauth: { authorizeUrl: (state: string, redirectUri: string) => authorizeUrl(env, state, redirectUri)!, exchange: (code: string, redirectUri: string) => oauthConnection(env, code, redirectUri) } }
      : {}),
  };
}

/** Pipedrive persons, as one platform module (docs/adding-a-platform.md). */
export const pipedrivePlatform = definePlatform({
  id: 'pipedrive',
  label: 'Pipedrive',
  settings: PipedriveSettings,
  environment: pipedriveEnvironment,
  writeBatchSize: WRITE_BATCH_SIZE,
  connector: platformConnector(
    { settings: PipedriveSettings, environment: pipedriveEnvironment },
    (connection, deps, { settings, environment }) => new PipedriveConnector(connection, deps, settings, environment),
    checkPipedriveScope,
  ),
  card: {
    description: 'Persons: verification results as the person fields EV risk, EV score, EV reason, EV checked at',
    scopes: [
      { scope: 'all', label: 'All persons (or the connection\'s saved filter)' },
      { scope: 'filter:<id>', label: 'A saved person filter' },
      { scope: 'changed-since:<ISO time>', label: 'Persons changed since a time' },
    ],
    defaultScope: 'all',
  },
  reconnectAdvice: 'reconnect Pipedrive (`verify-hub pipedrive connect`, or Connections in the dashboard)',
  setup: ({ config }) => pipedriveSetup(pipedriveEnvironment.read(config)),
  commands: pipedriveCommands,
  // The receiver finds each connection's basic-auth password in the stored connections.
  webhook: ({ connections }) => (connections ? { receiver: pipedriveReceiver(() => connections) } : undefined),
  routes: (context) => panelRoutes(context),
});
