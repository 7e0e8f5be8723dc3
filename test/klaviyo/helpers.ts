import { createLocalLimiter, type ConnectionRecord, type LimiterFactory } from '@verify-hub/core';
import { KlaviyoConnector, klaviyoEnvironment } from '@verify-hub/connector-klaviyo';
import { FakeKlaviyo, type FakeKlaviyoOptions } from '../fakes/klaviyo';

/** The connector's environment against a fake: its API base, and jobs polled every 20 ms. */
export const fakeEnvironment = (fake: FakeKlaviyo, extra: Record<string, string> = {}) =>
  klaviyoEnvironment.read({ KLAVIYO_API_BASE: fake.url, KLAVIYO_JOB_POLL_MS: '20', ...extra } as never);

/** A stored key connection to the fake's account. */
export function keyRecord(fake: FakeKlaviyo, apiKey = fake.apiKey): ConnectionRecord {
  return { id: `klaviyo-${fake.accountId}`, platform: 'klaviyo', label: 'Demo Store', createdAt: new Date().toISOString(), credentials: { apiKey, flowSecret: 'flow-secret-0123456789' }, settings: { account: fake.accountId, accountName: fake.accountName } };
}

/** A connector on the fake, with in-process limiters (or `limiter`'s) and a record of credentials it saved. */
export function connectorFor(fake: FakeKlaviyo, record = keyRecord(fake), extra: Record<string, string> = {}, limiter: LimiterFactory = (spec) => createLocalLimiter(spec)) {
  const saved: ConnectionRecord['credentials'][] = [];
  const connector = new KlaviyoConnector(record, { limiter, saveCredentials: async (c) => void saved.push(c) }, { account: fake.accountId, accountName: fake.accountName }, fakeEnvironment(fake, extra));
  return { connector, saved };
}

export async function startFake(options: FakeKlaviyoOptions = {}): Promise<FakeKlaviyo> {
  return new FakeKlaviyo(options).start();
}
