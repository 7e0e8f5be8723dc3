import { VerifyHubError, type ConnectionRecord, type WebhookRegistration } from '@verify-hub/core';
import { HUB_WEBHOOK_EVENTS } from './brevo-api';
import { oneOffConnector } from './connector';
import { isHubWebhookFor, webhookPath } from './webhook';

/** The connection's receiver address under the hub's public base URL. */
export function hubWebhookUrl(record: ConnectionRecord, hubUrl: string): string | undefined {
  const token = record.credentials.webhookToken;
  if (typeof token !== 'string' || !token) return undefined;
  return `${hubUrl.replace(/\/+$/, '')}${webhookPath(record.id, token)}`;
}

/**
 * Registers the connection's marketing webhook (contactUpdated, listAddition, contactDeleted; Brevo
 * has no contact-created event: a new contact arrives with its list addition), with the token as Brevo's
 * bearer auth. Webhook calls count against the 100 calls an hour of Brevo's non-contact endpoints, so
 * this makes two at most when nothing changed (list, keep) and one more per webhook created or deleted.
 * A refusal is answered, not thrown: the URL can be added by hand.
 */
export async function registerHubWebhook(record: ConnectionRecord, hubUrl: string, apiBase: string): Promise<WebhookRegistration | undefined> {
  const url = hubWebhookUrl(record, hubUrl);
  const token = record.credentials.webhookToken;
  if (!url || typeof token !== 'string') return undefined;
  const api = oneOffConnector(record, apiBase).api;
  try {
    const ours = (await api.marketingWebhooks()).filter((hook) => isHubWebhookFor(record.id, hook.url));
    const kept = ours.find((hook) => hook.url === url && HUB_WEBHOOK_EVENTS.every((e) => hook.events.includes(e)));
    for (const hook of ours) if (hook !== kept) await api.deleteWebhook(hook.id);
    if (!kept) await api.createWebhook(url, token, `verify-hub: verifies new and changed contacts (${record.id})`);
    return { url, registered: true };
  } catch (error) {
    if (!(error instanceof VerifyHubError)) throw error;
    return { url, registered: false, problem: `Brevo did not register the webhook: ${error.message}` };
  }
}
