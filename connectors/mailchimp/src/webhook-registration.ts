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

/** Where the webhook's signing secret is kept: with the key, in the sealed credentials. */
export const SIGNING_SECRET_CREDENTIAL = 'webhookSigningSecret';

/**
 * Whether a registered webhook can stay: same address and settings, and signed exactly when the hub
 * holds its signing secret. A webhook registered before signing (unsigned, or signed with a secret the
 * hub never got) is registered again, so Mailchimp hands out a signing secret.
 */
function keepable(hook: Webhook, url: string, signingSecretHeld: boolean): boolean {
  const signedAsHeld = signingSecretHeld ? hook.signing_enabled !== false : hook.signing_enabled === undefined;
  return hook.url === url && sameSettings(hook) && signedAsHeld;
}

/**
 * Registers the connection's audience webhook, once: an identical one is kept, and the hub's other
 * webhooks for this connection (an older secret, an unsigned one, or one pasted in with other sources)
 * are deleted. A new registration's signing secret, which Mailchimp returns only in the create answer,
 * comes back in `record` for the host to save sealed. A Mailchimp refusal (it could not reach a
 * localhost hub) is answered, not thrown.
 */
export async function registerHubWebhook(record: ConnectionRecord, hubUrl: string): Promise<(WebhookRegistration & { record?: ConnectionRecord }) | undefined> {
  const listId = record.settings?.listId;
  const url = hubWebhookUrl(record, hubUrl);
  if (typeof listId !== 'string' || !listId || !url) return undefined;
  const api = oneOffConnector(record).api;
  const held = typeof record.credentials[SIGNING_SECRET_CREDENTIAL] === 'string' && record.credentials[SIGNING_SECRET_CREDENTIAL] !== '';
  try {
    const ours = (await api.webhooks(listId)).filter((hook) => isHubWebhookFor(record.id, hook.url));
    const kept = ours.find((hook) => keepable(hook, url, held));
    for (const hook of ours) if (hook !== kept) await api.deleteWebhook(listId, hook.id);
    if (kept) return { url, registered: true };
    const created = await api.createWebhook(listId, { url, ...HUB_WEBHOOK });
    const { [SIGNING_SECRET_CREDENTIAL]: _old, ...credentials } = record.credentials;
    // No secret in the answer (signing not offered): the URL secret stays the only check.
    if (created.signing_secret) credentials[SIGNING_SECRET_CREDENTIAL] = created.signing_secret;
    return { url, registered: true, record: { ...record, credentials } };
  } catch (error) {
    // Any Mailchimp failure (a refused URL or key, an outage): the connection stays, the URL can be added by hand.
    if (!(error instanceof VerifyHubError)) throw error;
    const why = (error as { detail?: string }).detail || error.message;
    return { url, registered: false, problem: `Mailchimp did not register the webhook: ${why}` };
  }
}
