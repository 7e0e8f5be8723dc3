import { PlatformRejectedError, credentialsRefused, type ConnectionRecord } from '@verify-hub/core';
import { oneOffConnector } from './connector';
import { brevoConnectionId, DEFAULT_LIST_NAME } from './settings';
import { newWebhookToken } from './webhook';

/**
 * An API key as the connection `brevo-<organization_id>`, checked with `GET /account` (read-only),
 * with a new webhook token. The key's name (as the user named it in Brevo) lets the webhook receiver
 * ignore the hub's own writes. Brevo's OAuth apps only work inside one's own organisation for now, so
 * a hub serving many Brevo accounts takes API keys.
 */
export async function brevoKeyConnection(apiBase: string, input: { apiKey: string; apiKeyName?: string; label?: string }): Promise<ConnectionRecord> {
  const probe: ConnectionRecord = { id: 'brevo-probe', platform: 'brevo', label: 'Brevo', createdAt: new Date().toISOString(), credentials: { apiKey: input.apiKey }, settings: { account: 'probe' } };
  let account: Awaited<ReturnType<ReturnType<typeof oneOffConnector>['api']['account']>>;
  try {
    account = await oneOffConnector(probe, apiBase).api.account();
  } catch (error) {
    if (credentialsRefused(error)) throw new PlatformRejectedError('apiKey', 'apiKey: Brevo refused this API key: copy it again from Settings > SMTP & API > API keys');
    throw error;
  }
  const name = account.companyName || account.email || account.organization_id;
  return {
    id: brevoConnectionId(account.organization_id),
    platform: 'brevo',
    label: input.label ?? `Brevo ${name}`,
    createdAt: new Date().toISOString(),
    credentials: { apiKey: input.apiKey, webhookToken: newWebhookToken(), ...(input.apiKeyName?.trim() ? { apiKeyName: input.apiKeyName.trim() } : {}) },
    settings: { account: account.organization_id, listName: DEFAULT_LIST_NAME },
  };
}
