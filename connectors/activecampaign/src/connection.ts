import { randomBytes } from 'node:crypto';
import { InputError, PlatformRejectedError, TransientError, createLocalLimiter, type ConnectionRecord } from '@verify-hub/core';
import { parseAccountUrl, type AccountUrl } from './account-url';
import { ActivecampaignClient } from './api-client';
import type { ActivecampaignEnvironment } from './environment';
import { ActivecampaignErrors, ActivecampaignRequestError } from './errors';
import { Me } from './responses';
import { ActivecampaignSettings, activecampaignConnectionId } from './settings';

/** A webhook secret: a segment of the webhook's URL, the only proof of an unsigned delivery. */
export const newWebhookSecret = () => randomBytes(24).toString('base64url');

/** Where calls for `account` go: ACTIVECAMPAIGN_API_BASE when set (a proxy, a fake), else the account's own URL. */
export const apiBaseFor = (account: AccountUrl, environment: Pick<ActivecampaignEnvironment, 'ACTIVECAMPAIGN_API_BASE'>) => environment.ACTIVECAMPAIGN_API_BASE ?? account.origin;

/** The token a connection holds; an InputError naming it when absent. */
export function tokenOf(record: ConnectionRecord): string {
  const token = record.credentials.apiToken;
  if (typeof token !== 'string' || !token.trim()) throw new InputError('credentials.apiToken', 'is required (Settings > Developer in ActiveCampaign)');
  return token.trim();
}

/** A client for one-off calls outside the pipeline (connect, setup, webhook registration): its own limiter at the account's rate. */
export function oneOffClient(record: ConnectionRecord, environment: ActivecampaignEnvironment): ActivecampaignClient {
  const settings = ActivecampaignSettings.parse(record.settings);
  const account = parseAccountUrl(settings.apiUrl, 'settings.apiUrl');
  const limiter = createLocalLimiter({ perInterval: { count: environment.ACTIVECAMPAIGN_REQUESTS_PER_SECOND, intervalMs: 1100 } });
  return new ActivecampaignClient({ baseUrl: apiBaseFor(account, environment), token: tokenOf(record), limiter });
}

/**
 * An account API URL and `Api-Token` as connection `activecampaign-<account>`, with a new webhook
 * secret. The URL is checked for its form before the token goes anywhere, then the token with
 * `GET /users/me` (read-only). A refused token or an address that is not an ActiveCampaign API answers
 * PlatformRejectedError naming the field; neither the token nor the secret is ever in a message.
 */
export async function connectionFromToken(environment: ActivecampaignEnvironment, input: { apiUrl?: string; apiToken?: string; label?: string }): Promise<{ record: ConnectionRecord; webhookSecret: string }> {
  const account = parseAccountUrl(input.apiUrl ?? '', 'apiUrl');
  const apiToken = input.apiToken?.trim();
  if (!apiToken) throw new InputError('apiToken', 'is required (Settings > Developer in ActiveCampaign)');
  const client = new ActivecampaignClient({ baseUrl: apiBaseFor(account, environment), token: apiToken });
  try {
    await client.call('GET', '/users/me', Me);
  } catch (error) {
    if (error instanceof ActivecampaignErrors.AuthError) throw new PlatformRejectedError('apiToken', 'apiToken: ActiveCampaign refused this API token: copy it from Settings > Developer');
    if (error instanceof ActivecampaignRequestError) throw new PlatformRejectedError('apiUrl', 'apiUrl: this address answered, but not as an ActiveCampaign API: copy the URL from Settings > Developer');
    if (error instanceof TransientError && error.status === undefined) throw new PlatformRejectedError('apiUrl', `apiUrl: ActiveCampaign could not be reached at ${account.origin}: check the URL (Settings > Developer)`);
    throw error;
  }
  const webhookSecret = newWebhookSecret();
  const record: ConnectionRecord = {
    id: activecampaignConnectionId(account.account),
    platform: 'activecampaign',
    label: input.label?.trim() || `ActiveCampaign ${account.account}`,
    createdAt: new Date().toISOString(),
    credentials: { apiToken, webhookSecret },
    settings: { apiUrl: account.origin },
  };
  return { record, webhookSecret };
}
