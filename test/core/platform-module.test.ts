import { AuthError, EngineAuthError, InputError, QuotaError, RateLimitError, definePlatform, platformErrorKinds, type ConnectorFactory } from '@verify-hub/core';

const connector: ConnectorFactory = () => {
  throw new Error('not built in this test');
};

describe('definePlatform', () => {
  it('refuses a module whose id or label cannot name it, naming the field', () => {
    expect(() => definePlatform({ id: 'Toy CRM', label: 'Toy', connector })).toThrow(InputError);
    expect(() => definePlatform({ id: 'Toy CRM', label: 'Toy', connector })).toThrow(/^id: must be lower-case/);
    expect(() => definePlatform({ id: '9toy', label: 'Toy', connector })).toThrow(/^id:/);
    expect(() => definePlatform({ id: 'toy', label: ' ', connector })).toThrow(/^label:/);
    expect(() => definePlatform({ id: 'toy', label: 'Toy', connector: undefined as unknown as ConnectorFactory })).toThrow(/^connector:/);
  });

  it('returns the module, frozen', () => {
    const module = definePlatform({ id: 'toy-crm', label: 'Toy CRM', connector });
    expect(module.id).toBe('toy-crm');
    expect(Object.isFrozen(module)).toBe(true);
  });
});

describe('platformErrorKinds', () => {
  it("gives a platform the kinds the pipeline pauses and waits on, with the platform as source, never the engine's", () => {
    const kinds = platformErrorKinds('toy');
    const auth = new kinds.AuthError('refused');
    expect(auth).toBeInstanceOf(AuthError);
    expect(auth).toMatchObject({ source: 'toy', code: 'UNAUTHORIZED', message: 'refused' });
    expect(auth).not.toBeInstanceOf(EngineAuthError);

    const rate = new kinds.RateLimitError('slow down', { resetAt: 5_000 });
    expect(rate).toBeInstanceOf(RateLimitError);
    expect(rate).not.toBeInstanceOf(QuotaError);
    expect(rate.waitMs(1_000)).toBe(4_000);

    const quota = new kinds.QuotaError('daily limit', { resetAt: 10 });
    expect(quota).toBeInstanceOf(QuotaError);
    expect(quota).toBeInstanceOf(RateLimitError);
    expect(quota.source).toBe('toy');
  });
});
