import { VerifyHubError, type ConnectionRecord, type WebhookRegistration } from '@verify-hub/core';
import { oneOffConnector } from './connector';
import type { Webhook, WebhookSettings } from './responses';
import { isHubWebhookFor, webhookPath } from './webhook';

/**
 * The audience webhook the hub registers: every member change made by a subscriber or in Mailchimp's
 * app, but not `api`: the hub's own write-backs are API calls and must not come back as events.
 */
export const HUB_WEBHOOK: WebhookSettings = {
  events: { subscribe: true, unsubscribe: true, profile: true, cleaned: true, upemail: true, campaign: false },
  sources: { user: true, admin: true, api: false },
};

function sameSettings(hook: Webhook): boolean {
  const flagsMatch = (wanted: Record<string, boolean>, got: Record<string, unknown> | undefined) => Object.entries(wanted).every(([name, on]) => (got?.[name] ?? false) === on);
  return flagsMatch(HUB_WEBHOOK.events, hook.events) && flagsMatch(HUB_WEBHOOK.sources, hook.sources);
}

/** The connection's receiver address under the hub's public base URL. */
export function hubWebhookUrl(record: ConnectionRecord, hubUrl: string): string | undefined {
  const secret = record.credentials.webhookSecret;
  if (typeof secret !== 'string' || !secret) return undefined;
  return `${hubUrl.replace(/\/+$/, '')}${webhookPath(record.id, secret)}`;
}

/**
 * Registers the connection's audience webhook, once: an identical one is kept, and the hub's other
 * webhooks for this connection (an older secret, or one pasted in with other sources) are deleted.
 * A Mailchimp refusal (it could not reach a localhost hub) is answered, not thrown.
 */
export async function registerHubWebhook(record: ConnectionRecord, hubUrl: string): Promise<WebhookRegistration | undefined> {
  const listId = record.settings?.listId;
  const url = hubWebhookUrl(record, hubUrl);
  if (typeof listId !== 'string' || !listId || !url) return undefined;
  const api = oneOffConnector(record).api;
  try {
    const ours = (await api.webhooks(listId)).filter((hook) => isHubWebhookFor(record.id, hook.url));
    const kept = ours.find((hook) => hook.url === url && sameSettings(hook));
    for (const hook of ours) if (hook !== kept) await api.deleteWebhook(listId, hook.id);
    if (!kept) await api.createWebhook(listId, { url, ...HUB_WEBHOOK });
    return { url, registered: true };
  } catch (error) {
    // Any Mailchimp failure (a refused URL or key, an outage): the connection stays, the URL can be added by hand.
    if (!(error instanceof VerifyHubError)) throw error;
    const why = (error as { detail?: string }).detail || error.message;
    return { url, registered: false, problem: `Mailchimp did not register the webhook: ${why}` };
  }
}
