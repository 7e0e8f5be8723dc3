import { InputError, definePlatform, type Config, type ConnectionStore, type PlatformSetup, type WebhookReceiver } from '@verify-hub/core';
import { mailchimpEnvironment } from './environment';
import { mailchimpCommands } from './commands';
import { MailchimpSettingsSchema } from './connection-settings';
import { mailchimpConnectorFactory } from './connector';
import { BATCH_SUBSCRIBE_LIMIT } from './writer';
import { mailchimpAudiences, mailchimpKeyConnection, newWebhookSecret } from './key-connection';
import { authorizeUrl, connectionFromOAuth } from './oauth';
import { parse as parseMailchimpWebhook, webhookPath } from './webhook';
import { registerHubWebhook } from './webhook-registration';

export { mailchimpKeyConnection } from './key-connection';

/**
 * The key form (API key, then the audience picked from the account's list) and, when configured, OAuth.
 * The hub registers the audience webhook itself; its address is the fallback to paste in by hand.
 */
export function mailchimpSetup(config: Config): PlatformSetup {
  const setup: PlatformSetup = {
    keyFields: [
      { name: 'apiKey', label: 'API key', secret: true, help: 'In Mailchimp: Account > Extras > API keys; it ends with the data center, like -us21' },
      { name: 'listId', label: 'Audience', secret: false, choice: true, help: 'Picked from your account once the API key is in; or type the Audience ID (Audience > Settings > Audience name and defaults)' },
    ],
    listChoices: async (field, input) => {
      if (field !== 'listId') throw new InputError('field', 'only listId has choices');
      if (!input.apiKey?.trim()) throw new InputError('apiKey', 'is required to list the audiences');
      return mailchimpAudiences(config, input.apiKey.trim());
    },
    registerWebhook: registerHubWebhook,
    renewWebhookUrl: (record) => {
      const webhookSecret = newWebhookSecret();
      return { record: { ...record, credentials: { ...record.credentials, webhookSecret } }, webhookUrl: webhookPath(record.id, webhookSecret) };
    },
    connectWithKey: async (input) => {
      const { record, webhookSecret } = await mailchimpKeyConnection(config, { apiKey: input.apiKey!, listId: input.listId!, label: input.label });
      return { record, webhookUrl: webhookPath(record.id, webhookSecret) };
    },
  };
  const { MAILCHIMP_CLIENT_ID: clientId, MAILCHIMP_CLIENT_SECRET: clientSecret, MAILCHIMP_LOGIN_BASE: loginBase } = mailchimpEnvironment.read(config);
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

/** What a delivery to a connection is checked against: the URL secret and, once registered with signing, the signing secret. */
export interface ReceiverSecrets {
  urlSecret: string;
  signingSecret?: string;
}

/** The receiver's per-connection secrets: kept sealed with the connection's credentials. */
function webhookSecrets(connections: ConnectionStore | undefined) {
  return async (connectionId: string): Promise<ReceiverSecrets | undefined> => {
    const connection = await connections?.get(connectionId);
    if (!connection || connection.platform !== 'mailchimp') return undefined;
    const secret = connection.credentials.webhookSecret ?? connection.settings?.webhookSecret;
    if (typeof secret !== 'string' || !secret) return undefined;
    const signing = connection.credentials.webhookSigningSecret;
    return { urlSecret: secret, ...(typeof signing === 'string' && signing ? { signingSecret: signing } : {}) };
  };
}

/**
 * GET|POST /webhooks/mailchimp/:connection/:secret: the URL secret is per connection, and a webhook
 * registered with signing must carry Mailchimp's signature as well. An unknown connection gets the
 * parser's 401, the same answer as a wrong secret, so the route does not tell which connections exist.
 */
export function mailchimpReceiver(secretsFor: (connectionId: string) => Promise<ReceiverSecrets | undefined>): WebhookReceiver {
  return {
    receive: async (request, route, now) => {
      const secrets = route.connection ? await secretsFor(route.connection) : undefined;
      return parseMailchimpWebhook(request, route.secret ?? '', secrets?.urlSecret ?? '', { signingSecret: secrets?.signingSecret, now });
    },
    connectionIdFor: (event, route) => route.connection ?? `mailchimp-${event.accountId}`,
  };
}

/** Mailchimp audiences, as one platform module. */
export const mailchimpPlatform = definePlatform({
  id: 'mailchimp',
  label: 'Mailchimp',
  connector: mailchimpConnectorFactory,
  settings: MailchimpSettingsSchema,
  writeBatchSize: BATCH_SUBSCRIBE_LIMIT,
  card: {
    description: 'Audience members: verification results as merge fields and tags',
    scopes: [
      { scope: 'all', label: "The connection's audience" },
      { scope: 'audience:<list>', label: 'Another audience' },
      { scope: 'segment:<list>:<segment>', label: 'One segment' },
      { scope: 'changed-since:<ISO time>', label: 'Members changed since a time' },
    ],
    defaultScope: 'all',
    webhookHelp:
      'If the hub could not register it, add this address as a webhook of the audience in Mailchimp (Audience → Settings → Webhooks), with "by the API" unticked, so new and changed subscribers are verified as they arrive.',
  },
  environment: mailchimpEnvironment,
  reconnectAdvice: 'reconnect Mailchimp (`verify-hub mailchimp connect`, or Connections in the dashboard)',
  setup: ({ config }) => mailchimpSetup(config),
  commands: mailchimpCommands,
  webhook: ({ connections }) => ({
    paths: [{ path: '/:connection/:secret', methods: ['GET', 'POST'] }],
    receiver: mailchimpReceiver(webhookSecrets(connections)),
  }),
});
