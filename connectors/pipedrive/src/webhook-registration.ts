import { randomBytes } from 'node:crypto';
import { VerifyHubError, type ConnectionRecord, type DisconnectReport } from '@verify-hub/core';
import type { PipedriveApi } from './api';
import type { PipedriveSettings } from './settings';

/** Where Pipedrive delivers: the hub's receiver (one for every company; the basic-auth user names the connection). */
export const webhookUrl = (hubUrl: string) => `${hubUrl.replace(/\/+$/, '')}/webhooks/pipedrive`;
/** The credential holding the basic-auth password Pipedrive sends with each delivery. */
export const WEBHOOK_PASSWORD = 'webhookPassword';

/** Deletes the webhooks the hub registered; one already gone (404) counts as removed. */
export async function removeWebhooks(api: PipedriveApi, ids: number[]): Promise<DisconnectReport> {
  let removed = 0;
  for (const id of ids) {
    try {
      await api.deleteWebhook(id);
      removed++;
    } catch (error) {
      if (!(error instanceof VerifyHubError && error.status === 404)) throw error;
      removed++;
    }
  }
  return { deleted: removed ? [`${removed} Pipedrive webhook${removed === 1 ? '' : 's'}`] : [], notes: ['the person fields "EV risk", "EV score", "EV reason" and "EV checked at" stay, with their values: delete them in Pipedrive if you no longer want them'] };
}

/**
 * Registers webhooks v2 for persons created and changed (`POST /v1/webhooks`, `version: 2.0`), sent
 * with HTTP basic auth: the connection's id as the user and a new random password, kept sealed with the
 * connection. Webhooks registered before are deleted first, so running it again leaves one of each.
 */
export async function registerWebhooks(api: PipedriveApi, record: ConnectionRecord, settings: PipedriveSettings, hubUrl: string): Promise<ConnectionRecord> {
  // Ours from before: those the connection kept, and any person webhook to this receiver (a connect
  // made again starts from a fresh record that no longer knows them).
  const earlier = (await api.webhooks()).filter((hook) => hook.subscription_url === webhookUrl(hubUrl) && hook.event_object === 'person').map((hook) => hook.id);
  await removeWebhooks(api, [...new Set([...(settings.webhookIds ?? []), ...earlier])]);
  const password = randomBytes(24).toString('base64url');
  const ids: number[] = [];
  for (const action of ['create', 'change'] as const) {
    ids.push(await api.addWebhook({ url: webhookUrl(hubUrl), action, userId: settings.userId, authUser: record.id, authPassword: password, name: `verify-hub ${action} person` }));
  }
  return { ...record, credentials: { ...record.credentials, [WEBHOOK_PASSWORD]: password }, settings: { ...record.settings, webhookIds: ids } };
}
