import { VerifyHubError, type ConnectionRecord, type WebhookRegistration } from '@verify-hub/core';
import type { ActivecampaignClient } from './api-client';
import { ActivecampaignNotFoundError } from './errors';
import { Refusal, WebhookCreated, WebhooksPage, type Webhook } from './responses';
import { isHubWebhookFor, webhookPath } from './webhook-delivery';

/**
 * The webhook the hub registers: contacts subscribing to a list and contacts changing, made by a
 * contact (`public`), a user (`admin`) or the system, but not through the API (`api`): the hub's own
 * writes are API calls and must not come back as work.
 */
export const HUB_WEBHOOK = { events: ['subscribe', 'update'], sources: ['public', 'admin', 'system'] } as const;

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** The connection's receiver address under the hub's public base URL; undefined without a webhook secret. */
export function hubWebhookUrl(record: ConnectionRecord, hubUrl: string): string | undefined {
  const secret = record.credentials.webhookSecret;
  if (typeof secret !== 'string' || !secret) return undefined;
  return `${hubUrl.replace(/\/+$/, '')}${webhookPath(record.id, secret)}`;
}

async function hubWebhooks(client: ActivecampaignClient, connectionId: string): Promise<Webhook[]> {
  const page = await client.call('GET', '/webhooks', WebhooksPage, { query: { limit: 100 } });
  return page.webhooks.filter((hook) => isHubWebhookFor(connectionId, hook.url));
}

/**
 * Registers the connection's webhook once (`POST /webhooks`): an identical one is kept; the hub's other
 * webhooks for this connection (an old secret, other events or sources) are deleted. A refusal (the
 * real ActiveCampaign posts to https on port 443 only) is answered, not thrown: the URL can be added by hand.
 */
export async function registerHubWebhook(client: ActivecampaignClient, record: ConnectionRecord, hubUrl: string): Promise<WebhookRegistration | undefined> {
  const url = hubWebhookUrl(record, hubUrl);
  if (!url) return undefined;
  try {
    const ours = await hubWebhooks(client, record.id);
    const kept = ours.find((hook) => hook.url === url && sameSet(hook.events, HUB_WEBHOOK.events) && sameSet(hook.sources, HUB_WEBHOOK.sources));
    for (const hook of ours) if (hook !== kept) await deleteWebhook(client, hook.id);
    if (!kept) {
      await client.call('POST', '/webhooks', WebhookCreated, { body: { webhook: { name: `verify-hub ${record.id}`, url, events: [...HUB_WEBHOOK.events], sources: [...HUB_WEBHOOK.sources] } } });
    }
    return { url, registered: true };
  } catch (error) {
    if (!(error instanceof VerifyHubError)) throw error;
    return { url, registered: false, problem: `ActiveCampaign did not register the webhook: ${error.message}` };
  }
}

async function deleteWebhook(client: ActivecampaignClient, id: string): Promise<void> {
  try {
    await client.call('DELETE', `/webhooks/${encodeURIComponent(id)}`, Refusal);
  } catch (error) {
    if (!(error instanceof ActivecampaignNotFoundError)) throw error;
  }
}

/** Deletes every webhook that posts to this connection's address on the hub; other webhooks are left alone. */
export async function removeHubWebhooks(client: ActivecampaignClient, connectionId: string): Promise<number> {
  const ours = await hubWebhooks(client, connectionId);
  for (const hook of ours) await deleteWebhook(client, hook.id);
  return ours.length;
}
