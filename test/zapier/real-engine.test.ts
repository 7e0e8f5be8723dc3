import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { unknownVerification, type Verification, type Verifier } from '@verify-hub/core';
import { startEngineServer, type EngineServer } from '@verify-hub/engine';
import App from 'verify-hub-zapier';
import { SAMPLE_VERIFICATION } from '../../connectors/zapier/src/verification-output';
import { appError, appTester, rejection, throttled } from './helpers';

/** The engine's checks are not what this suite tests: a verifier that answers from the local part. */
const cannedVerifier: Verifier = {
  async verify(email: string): Promise<Verification> {
    if (email.startsWith('unknown')) return unknownVerification(email, email, 'greylisted');
    const { explanation: _explanation, ...result } = SAMPLE_VERIFICATION;
    return { ...result, email, normalized: email, checkedAt: new Date().toISOString() };
  },
};

/** The Zapier app against the real engine HTTP API (engine/), not a fake: the contract both sides keep. */
describe('Zapier app against the verify-hub engine API', () => {
  const prefix = `test:zapier-engine:${randomUUID()}:`;
  let redis: Redis;
  let server: EngineServer;

  async function connection(account: string, limits: { ratePerSecond?: number; monthlyQuota?: number }) {
    const { key } = await server.store.createKey({ name: `zapier ${account}`, account });
    await server.store.setAccountLimits(account, limits);
    return { apiKey: key, engineUrl: server.url };
  }

  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    server = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: cannedVerifier, defaultLimits: { ratePerSecond: 50, monthlyQuota: 100 } });
  });
  afterAll(async () => {
    await server.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('the connection test accepts a real key without spending a credit, and refuses a revoked one', async () => {
    const authData = await connection('acme', { ratePerSecond: 50, monthlyQuota: 100 });
    expect(await appTester(App.authentication.test, { authData })).toMatchObject({ keyAccepted: true });
    expect(await server.store.usage('acme')).toBe(0);
    expect(await appTester(App.authentication.connectionLabel, { authData })).toMatch(/^127\.0\.0\.1:\d+ \(key vh_…\)$/);
    const verified = await appTester(App.creates.verify_email.operation.perform, { authData, inputData: { email: 'jane@example.com' } });
    expect(verified).toMatchObject({ risk: 'safe', score: 92, checks: { catchAllConfidence: 0.05 }, deliverability: { grade: 'A' } });
    expect(await server.store.usage('acme')).toBe(1);
    const unknown = await appTester(App.creates.verify_email.operation.perform, { authData, inputData: { email: 'unknown@example.com' } });
    expect(unknown).toMatchObject({ risk: 'unknown', billable: false });
    expect(await server.store.usage('acme')).toBe(1); // unknown refunded

    await server.store.revokeKey((await server.store.listKeys()).find((k) => k.account === 'acme')!.id);
    const refused = appError(await rejection(appTester(App.authentication.test, { authData })));
    expect(refused.code).toBe('UNAUTHORIZED');
    const expired = await rejection(appTester(App.creates.verify_email.operation.perform, { authData, inputData: { email: 'jane@example.com' } }));
    expect(expired.name).toBe('ExpiredAuthError');
  });

  it("the engine's rate limit becomes a ThrottledError with its reset, its quota an error naming the remedy", async () => {
    const rated = await connection('busy', { ratePerSecond: 1, monthlyQuota: 100 });
    const verify = (email: string, authData = rated) => appTester(App.creates.verify_email.operation.perform, { authData, inputData: { email } });
    // at 1 per second, three calls at once span at most two one-second windows: at least one is refused
    const outcomes = await Promise.allSettled([verify('a@example.com'), verify('b@example.com'), verify('c@example.com')]);
    const limited = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult | undefined;
    expect(limited).toBeDefined();
    const error = throttled(limited!.reason);
    expect(error.name).toBe('ThrottledError');
    expect(error.delay).toBeGreaterThanOrEqual(1);
    expect(error.delay).toBeLessThanOrEqual(2);

    const broke = await connection('broke', { ratePerSecond: 50, monthlyQuota: 1 });
    await verify('first@example.com', broke);
    const quota = appError(await rejection(verify('second@example.com', broke)));
    expect(quota).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    expect(quota.message).toMatch(/Buy a credit pack or upgrade your plan/);
  });
});
