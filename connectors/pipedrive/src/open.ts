import { createLocalLimiter, type ConnectionRecord, type ConnectorDeps } from '@verify-hub/core';
import { PipedriveConnector } from './connector';
import type { PipedriveEnvironment } from './environment';
import { PipedriveSettings } from './settings';
import { registerWebhooks } from './webhook-registration';

/** A connector for one call outside the pipeline (a connect form, a CLI command): an in-process limiter. */
export function oneOffConnector(record: ConnectionRecord, env: PipedriveEnvironment, saveCredentials: ConnectorDeps['saveCredentials'] = async () => undefined): PipedriveConnector {
  return new PipedriveConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials }, PipedriveSettings.parse(record.settings), env);
}

/**
 * `setup` of one connection: the person fields found or made (their keys kept with the connection)
 * and, given the hub's public URL, the webhooks registered. Answers the record to save and the report.
 */
export async function setUpConnection(record: ConnectionRecord, env: PipedriveEnvironment, hubUrl: string | undefined) {
  const connector = oneOffConnector(record, env);
  const { keys, report } = await connector.resolveFields(true);
  let updated: ConnectionRecord = keys ? { ...record, settings: { ...record.settings, fieldKeys: keys } } : record;
  if (hubUrl) {
    updated = await registerWebhooks(connector.api, updated, PipedriveSettings.parse(updated.settings), hubUrl);
    report.created.push('webhooks v2 for persons created and changed (basic auth)');
  }
  return { record: updated, report };
}
