import { definePlatform, type WebhookReceiver } from '@verify-hub/core';
import { hubspotEnvironment } from './environment';
import { cardRoute, cardVerdicts } from './card';
import { hubspotCommands } from './commands';
import { journalTask } from './journal-task';
import { HubSpotConnector, hubspotConnectorFactory } from './connector';
import { BATCH_MAX } from './pull';
import { HubSpotSettingsSchema, hubspotConnectionId } from './settings';
import { hubspotSetup } from './token-connection';
import { parseDelivery as parseHubSpotDelivery } from './webhook';
import { actionCompletion } from './action-definition';
import { hubspotActionReceiver } from './workflow-action';

export { hubspotSetup, hubspotTokenConnection } from './token-connection';

/**
 * POST /webhooks/hubspot: one app secret for every portal (HUBSPOT_CLIENT_SECRET); each event's portal
 * id names the connection, `hubspot-<portalId>`. An app-uninstall lifecycle event disconnects that
 * portal's connection (`onUninstalled`, the host's uninstall disconnect), as the journal's does.
 */
export function hubspotReceiver(clientSecret: string, onUninstalled?: (connectionId: string) => Promise<unknown>): WebhookReceiver {
  return {
    receive: async (request, _route, now) => {
      const delivery = parseHubSpotDelivery(request, clientSecret, now);
      for (const portalId of delivery.uninstalledPortals) await onUninstalled?.(hubspotConnectionId(portalId));
      return delivery.events;
    },
    connectionIdFor: (event) => hubspotConnectionId(event.accountId),
  };
}

/** HubSpot CRM contacts, as one platform module. */
export const hubspotPlatform = definePlatform({
  id: 'hubspot',
  label: 'HubSpot',
  connector: hubspotConnectorFactory,
  settings: HubSpotSettingsSchema,
  // Batch update takes at most 100 inputs a call: the pipeline writes a page in batches of it.
  writeBatchSize: BATCH_MAX,
  card: {
    description: 'CRM contacts: verification results as contact properties',
    scopes: [
      { scope: 'all', label: 'All contacts' },
      { scope: 'list:<id>', label: 'One list' },
      { scope: 'changed-since:<ISO time>', label: 'Contacts changed since a time' },
    ],
    defaultScope: 'all',
  },
  environment: hubspotEnvironment,
  reconnectAdvice: 'reconnect HubSpot (`verify-hub hubspot connect`, or Connections in the dashboard)',
  setup: ({ config }) => hubspotSetup(config),
  commands: hubspotCommands,
  webhook: ({ config, logger, host }) => {
    const { HUBSPOT_CLIENT_SECRET: clientSecret } = hubspotEnvironment.read(config);
    if (clientSecret) return { receiver: hubspotReceiver(clientSecret, host && ((connectionId) => host.disconnectUninstalled(connectionId))) };
    logger.warn('HUBSPOT_CLIENT_SECRET is not set: POST /webhooks/hubspot answers 404');
    return undefined;
  },
  // The contact card (hubspot-project/) asks the hub at POST /platforms/hubspot/cards/:action.
  routes: ({ config, connections, host }) => {
    const { HUBSPOT_CLIENT_SECRET: clientSecret } = hubspotEnvironment.read(config);
    return clientSecret && host ? [cardRoute(clientSecret, cardVerdicts(host, connections))] : [];
  },
  // Connections set to `events: journal` read the portal's webhooks journal (no public URL needed).
  tasks: (context) => (context.host ? [journalTask(context, context.host)] : []),
  workflowAction: {
    receiver: ({ config, connections }, answer) => {
      const { HUBSPOT_CLIENT_SECRET: clientSecret } = hubspotEnvironment.read(config);
      return clientSecret ? hubspotActionReceiver(clientSecret, answer, async (id) => Boolean(await connections?.get(id))) : undefined;
    },
    complete: async (connector, callbackId, result) => {
      if (!(connector instanceof HubSpotConnector)) throw new Error('a HubSpot workflow action completes through the HubSpot connector');
      await connector.completeAction(callbackId, actionCompletion(result));
    },
  },
});
