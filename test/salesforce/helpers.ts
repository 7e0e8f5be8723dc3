import { createLocalLimiter, type ConnectionRecord, type Verification } from '@verify-hub/core';
import { SalesforceConnector, SalesforceSettings, salesforceEnvironment, salesforceConnectionId, type SalesforceEnvironment } from '@verify-hub/connector-salesforce';
import type { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';

/** The module's variables pointing at the fake (its login host serves production and sandbox). */
export function fakeEnvironment(fake: FakeSalesforce, extra: Partial<SalesforceEnvironment> = {}): SalesforceEnvironment {
  return salesforceEnvironment.read({
    SALESFORCE_CLIENT_ID: fake.clientId,
    SALESFORCE_CLIENT_SECRET: fake.clientSecret,
    SALESFORCE_JWT_PRIVATE_KEY: fake.jwtPrivateKey,
    SALESFORCE_LOGIN_URL: fake.url,
    SALESFORCE_SANDBOX_LOGIN_URL: fake.url,
    ...extra,
  } as never);
}

/** The same variables as a process environment (for `verify-hub serve`). */
export function fakeVariables(fake: FakeSalesforce): Record<string, string> {
  return { SALESFORCE_CLIENT_ID: fake.clientId, SALESFORCE_CLIENT_SECRET: fake.clientSecret, SALESFORCE_JWT_PRIVATE_KEY: fake.jwtPrivateKey, SALESFORCE_LOGIN_URL: fake.url, SALESFORCE_SANDBOX_LOGIN_URL: fake.url };
}

/** A stored connection to the fake org, signed in through the web-server flow. */
export function connectionRecord(fake: FakeSalesforce, settings: Record<string, unknown> = {}): ConnectionRecord {
  return { id: salesforceConnectionId(fake.orgId), platform: 'salesforce', label: 'Salesforce test org', createdAt: new Date().toISOString(), credentials: fake.issueTokens(), settings: fake.connectionSettings(settings) };
}

/** A connector over the fake, as the host builds one; `saved` collects what it asked the host to save. */
export function openConnector(fake: FakeSalesforce, settings: Record<string, unknown> = {}, record = connectionRecord(fake, settings)) {
  const saved: ConnectionRecord['credentials'][] = [];
  const connector = new SalesforceConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async (c) => void saved.push(c) }, SalesforceSettings.parse(record.settings), fakeEnvironment(fake));
  return { connector, saved, record };
}

/** A verification as the engine gives it. */
export function verdict(email: string, risk: Verification['risk'] = 'safe', checks: Partial<Verification['checks']> = {}): Verification {
  return {
    email,
    normalized: email.toLowerCase(),
    billable: true,
    risk,
    score: risk === 'safe' ? 92 : risk === 'risky' ? 55 : 5,
    reason: risk === 'invalid' ? 'mailbox_not_found' : 'accepted',
    checkedAt: '2026-11-27T10:00:00.000Z',
    checks: { syntax: true, mx: true, smtp: risk !== 'invalid', smtpCheck: null, disposable: false, roleAccount: null, catchAll: null, freeProvider: true, spamTrapRisk: null, ...checks },
  };
}
