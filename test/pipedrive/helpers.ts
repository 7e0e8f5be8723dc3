import { createLocalLimiter, type ConnectionRecord, type ConnectorDeps } from '@verify-hub/core';
import { PipedriveConnector, PipedriveSettings, pipedriveEnvironment } from '@verify-hub/connector-pipedrive';
import type { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';

/** The fake's company as a stored API-token connection (what `connect` saves), with settings over it. */
export function tokenRecord(fake: FakePipedrive, settings: Partial<PipedriveSettings> = {}): ConnectionRecord {
  return {
    id: `pipedrive-${fake.companyId}`,
    platform: 'pipedrive',
    label: 'Pipedrive acme',
    createdAt: new Date().toISOString(),
    credentials: { apiToken: fake.apiToken },
    settings: { companyId: fake.companyId, companyDomain: fake.companyDomain, apiDomain: 'https://acme.pipedrive.com', userId: fake.userId, burstLimit: fake.limits.burstLimit, ...settings },
  };
}

export const fakeEnvironment = (fake: FakePipedrive, extra: Record<string, string> = {}) =>
  pipedriveEnvironment.read({ PIPEDRIVE_API_BASE: fake.url, PIPEDRIVE_OAUTH_BASE: fake.url, ...extra } as never);

/** A connector over the fake with an in-process limiter; `saved` collects refreshed credentials. */
export function connectorFor(fake: FakePipedrive, record: ConnectionRecord = tokenRecord(fake), extra: Record<string, string> = {}) {
  const saved: ConnectionRecord['credentials'][] = [];
  const deps: ConnectorDeps = { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async (c) => void saved.push(c) };
  const connector = new PipedriveConnector(record, deps, PipedriveSettings.parse(record.settings), fakeEnvironment(fake, extra));
  return { connector, saved };
}
