import type { ContactEvent, RawWebhookRequest } from '@verify-hub/core';
import type { WebhookReceiver } from './deps';

/** HubSpot's parser (`connectors/hubspot/src/webhook.ts`): checks the signature with the app's client secret. */
export type HubSpotParse = (request: RawWebhookRequest, clientSecret: string, now?: number) => ContactEvent[];
/** Mailchimp's parser (`connectors/mailchimp/src/webhook.ts`): compares the URL's secret with the stored one. */
export type MailchimpParse = (request: RawWebhookRequest, presentedSecret: string, expectedSecret: string) => ContactEvent[];

/**
 * POST /webhooks/hubspot: one app secret for every portal; each event's portal id names the
 * connection, `hubspot-<portalId>` (the id the HubSpot connector gives a portal's connection).
 */
export function hubspotReceiver(parse: HubSpotParse, clientSecret: string): WebhookReceiver {
  return {
    receive: (request, _route, now) => parse(request, clientSecret, now),
    connectionIdFor: (event) => `hubspot-${event.accountId}`,
  };
}

/**
 * GET|POST /webhooks/mailchimp/:connection/:secret: the secret is per connection (Mailchimp signs
 * nothing). An unknown connection gets the parser's 401, the same answer as a wrong secret, so the
 * route does not tell which connections exist.
 */
export function mailchimpReceiver(parse: MailchimpParse, secretFor: (connectionId: string) => Promise<string | undefined>): WebhookReceiver {
  return {
    receive: async (request, route) => parse(request, route.secret ?? '', (route.connection && (await secretFor(route.connection))) || ''),
    connectionIdFor: (event, route) => route.connection ?? `mailchimp-${event.accountId}`,
  };
}
