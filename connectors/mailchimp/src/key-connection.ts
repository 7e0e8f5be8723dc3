import { randomBytes } from 'node:crypto';
import { InputError, PlatformRejectedError, type Config, type ConnectionRecord, type KeyFieldChoice } from '@verify-hub/core';
import { mailchimpEnvironment } from './environment';
import { dataCenterFromApiKey } from './connection-settings';
import { oneOffConnector } from './connector';
import { MailchimpAuthError, MailchimpNotFoundError } from './errors';

/** A webhook secret, a segment of the webhook's URL: the second factor beside Mailchimp's signature (or the only one for an unsigned webhook). */
export const newWebhookSecret = () => randomBytes(24).toString('base64url');

function dataCenterOf(apiKey: string): string {
  try {
    return dataCenterFromApiKey(apiKey);
  } catch {
    throw new InputError('apiKey', 'must end with the data center, like -us21 (copy the whole key from Account > Extras > API keys)');
  }
}

const refusedKey = () => new PlatformRejectedError('apiKey', 'apiKey: Mailchimp refused this API key: check it in Account > Extras > API keys');
const apiBaseSetting = (config: Config) => {
  const { MAILCHIMP_API_BASE: apiBase } = mailchimpEnvironment.read(config);
  return apiBase ? { apiBase } : {};
};

/**
 * A Mailchimp API key and audience as connection `mailchimp-<dc>-<list>`, with a new webhook secret.
 * The key and audience are checked by reading the audience's merge fields (read-only).
 */
export async function mailchimpKeyConnection(config: Config, input: { apiKey: string; listId: string; label?: string }): Promise<{ record: ConnectionRecord; webhookSecret: string }> {
  if (!/^[A-Za-z0-9]+$/.test(input.listId)) throw new InputError('listId', 'must be an audience id (letters and digits, as shown in Audience > Settings)');
  const dc = dataCenterOf(input.apiKey);
  const webhookSecret = newWebhookSecret();
  const record: ConnectionRecord = {
    id: `mailchimp-${dc}-${input.listId}`,
    platform: 'mailchimp',
    label: input.label ?? `Mailchimp ${dc} audience ${input.listId}`,
    createdAt: new Date().toISOString(),
    credentials: { apiKey: input.apiKey, webhookSecret },
    settings: { listId: input.listId, ...apiBaseSetting(config) },
  };
  try {
    await oneOffConnector(record).api.mergeFields(input.listId);
  } catch (error) {
    if (error instanceof MailchimpAuthError) throw refusedKey();
    if (error instanceof MailchimpNotFoundError) throw new PlatformRejectedError('listId', `listId: this Mailchimp account has no audience ${input.listId}: copy the Audience ID from Audience > Settings`);
    throw error;
  }
  return { record, webhookSecret };
}

/** The audiences an API key's account has (for the key form's picker and `verify-hub mailchimp audiences`). */
export async function mailchimpAudiences(config: Config, apiKey: string): Promise<KeyFieldChoice[]> {
  const dc = dataCenterOf(apiKey);
  const probe: ConnectionRecord = { id: `mailchimp-${dc}-audiences`, platform: 'mailchimp', label: 'Mailchimp audiences', createdAt: new Date().toISOString(), credentials: { apiKey }, settings: apiBaseSetting(config) };
  try {
    const audiences = await oneOffConnector(probe).api.audiences();
    return audiences.map((audience) => {
      const members = audience.stats?.member_count;
      return { value: audience.id, label: audience.name, ...(members === undefined ? {} : { detail: `${members.toLocaleString('en-US')} member${members === 1 ? '' : 's'}` }) };
    });
  } catch (error) {
    if (error instanceof MailchimpAuthError) throw refusedKey();
    throw error;
  }
}
