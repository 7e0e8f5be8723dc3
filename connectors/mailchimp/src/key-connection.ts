import { randomBytes } from 'node:crypto';
import { InputError, PlatformRejectedError, createLocalLimiter, type Config, type ConnectionRecord } from '@verify-hub/core';
import { mailchimpEnvironment } from './environment';
import { dataCenterFromApiKey } from './connection-settings';
import { MailchimpConnector } from './connector';
import { MailchimpAuthError, MailchimpNotFoundError } from './errors';

/** A webhook secret: Mailchimp signs nothing, so the secret is a segment of the webhook's URL. */
export const newWebhookSecret = () => randomBytes(24).toString('base64url');

/**
 * A Mailchimp API key and audience as connection `mailchimp-<dc>-<list>`, with a new webhook secret.
 * The key and audience are checked by reading the audience's merge fields (read-only).
 */
export async function mailchimpKeyConnection(config: Config, input: { apiKey: string; listId: string; label?: string }): Promise<{ record: ConnectionRecord; webhookSecret: string }> {
  if (!/^[A-Za-z0-9]+$/.test(input.listId)) throw new InputError('listId', 'must be an audience id (letters and digits, as shown in Audience > Settings)');
  let dc: string;
  try {
    dc = dataCenterFromApiKey(input.apiKey);
  } catch {
    throw new InputError('apiKey', 'must end with the data center, like -us21 (copy the whole key from Account > Extras > API keys)');
  }
  const webhookSecret = newWebhookSecret();
  const { MAILCHIMP_API_BASE: apiBase } = mailchimpEnvironment.read(config);
  const record: ConnectionRecord = {
    id: `mailchimp-${dc}-${input.listId}`,
    platform: 'mailchimp',
    label: input.label ?? `Mailchimp ${dc} audience ${input.listId}`,
    createdAt: new Date().toISOString(),
    credentials: { apiKey: input.apiKey, webhookSecret },
    settings: { listId: input.listId, ...(apiBase ? { apiBase } : {}) },
  };
  try {
    const connector = new MailchimpConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });
    await connector.api.mergeFields(input.listId);
  } catch (error) {
    if (error instanceof MailchimpAuthError) throw new PlatformRejectedError('apiKey', 'apiKey: Mailchimp refused this API key: check it in Account > Extras > API keys');
    if (error instanceof MailchimpNotFoundError) throw new PlatformRejectedError('listId', `listId: this Mailchimp account has no audience ${input.listId}: copy the Audience ID from Audience > Settings`);
    throw error;
  }
  return { record, webhookSecret };
}
