import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import {
  InputError,
  PlatformRejectedError,
  WebhookRejectedError,
  AuthError,
  definePlatform,
  type ConnectionStore,
  type ContactEvent,
  type ConnectorFactory,
  type PlatformSetup,
  type WebhookReceiver,
} from '@verify-hub/core';
import { ToyConnector, checkToyScope, toyCall } from './toy-connector';

/**
 * A throwaway platform, registered only through the platform module contract (docs/adding-a-platform.md):
 * everything verify-hub needs to connect, sync, receive webhooks, list it and add its command, route
 * and background task is in this folder. `state` lets the test see the parts the host started.
 */
export const toyState = { tasksRunning: 0, commandRuns: [] as string[][] };

const ToySettings = z.strictObject({ baseUrl: z.url(), account: z.string().min(1) });

// The host validates the connection's settings against ToySettings before building the connector.
const toyConnectorFactory: ConnectorFactory = Object.assign((connection: Parameters<ConnectorFactory>[0], deps: Parameters<ConnectorFactory>[1]) => new ToyConnector(connection, deps), { checkScope: checkToyScope });

function toySetup(): PlatformSetup {
  return {
    keyFields: [
      { name: 'apiKey', label: 'API key', secret: true, help: 'Toy CRM: Settings > API' },
      { name: 'baseUrl', label: 'API address', secret: false },
    ],
    async connectWithKey(input) {
      if (!/^https?:\/\//.test(input.baseUrl ?? '')) throw new InputError('baseUrl', 'must be an http(s) URL');
      let me: { account: string; webhookSecret: string };
      try {
        me = await toyCall(input.baseUrl!, input.apiKey!, '/me');
      } catch (error) {
        if (error instanceof AuthError) throw new PlatformRejectedError('apiKey', 'apiKey: Toy CRM refused this API key');
        throw error;
      }
      return {
        record: {
          id: `toy-${me.account}`,
          platform: 'toy',
          label: input.label ?? `Toy CRM ${me.account}`,
          createdAt: new Date().toISOString(),
          credentials: { apiKey: input.apiKey!, webhookSecret: me.webhookSecret },
          settings: { baseUrl: input.baseUrl!, account: me.account },
        },
      };
    },
  };
}

/** POST /webhooks/toy: the account in the body names the connection; its stored secret checks the signature. */
function toyReceiver(connections: ConnectionStore | undefined): WebhookReceiver {
  return {
    async receive(request) {
      let delivery: { account?: string; events?: { id: string; type: string; contactId: string; email?: string; at: number }[] };
      try {
        delivery = JSON.parse(request.body.toString('utf8')) as typeof delivery;
      } catch {
        throw new WebhookRejectedError('body: must be JSON', 400);
      }
      const connection = delivery.account ? await connections?.get(`toy-${delivery.account}`) : undefined;
      const secret = String(connection?.credentials.webhookSecret ?? '');
      const expected = createHmac('sha256', secret || 'no-connection').update(request.body).digest();
      const given = Buffer.from(request.headers['x-toy-signature'] ?? '', 'hex');
      if (!secret || given.length !== expected.length || !timingSafeEqual(given, expected)) throw new WebhookRejectedError('x-toy-signature: does not match', 401);
      return (delivery.events ?? []).map((event): ContactEvent => ({
        platform: 'toy',
        kind: event.type,
        accountId: delivery.account!,
        contactId: event.contactId,
        ...(event.email ? { email: event.email } : {}),
        occurredAt: event.at,
        dedupeKey: event.id,
      }));
    },
    connectionIdFor: (event) => `toy-${event.accountId}`,
  };
}

export const toyPlatform = definePlatform({
  id: 'toy',
  label: 'Toy CRM',
  connector: toyConnectorFactory,
  settings: ToySettings,
  card: { description: 'A throwaway platform for tests', scopes: [{ scope: 'all', label: 'All contacts' }], defaultScope: 'all' },
  reconnectAdvice: 'reconnect Toy CRM (Connections in the dashboard)',
  setup: () => toySetup(),
  webhook: ({ connections }) => ({ receiver: toyReceiver(connections) }),
  routes: ({ connections }) => [
    {
      method: 'GET',
      path: '/status/:account',
      async handle(request) {
        const connection = await connections?.get(`toy-${request.params.account}`);
        return connection ? { status: 200, body: { connected: true, label: connection.label } } : { status: 404, body: { connected: false } };
      },
    },
  ],
  tasks: () => [
    {
      name: 'toy-poller',
      start: () => void toyState.tasksRunning++,
      stop: async () => void toyState.tasksRunning--,
    },
  ],
  commands: [
    {
      name: 'ping',
      description: 'Say hello to Toy CRM',
      options: [{ flags: '--times <n>', description: 'how many times', default: '1' }],
      subcommands: [],
      async run(args, options) {
        toyState.commandRuns.push([...args, String(options.times)]);
        console.log(`toy: pong x${String(options.times)}`);
      },
    },
  ],
});
