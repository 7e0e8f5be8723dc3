import { z } from 'zod';
import {
  EngineAuthError,
  InputError,
  PlatformRegistry,
  PlatformRejectedError,
  VerifyHubError,
  configUrl,
  credentialsRefused,
  definePlatform,
  isPlatformModule,
  platformConnector,
  platformEnvironment,
  platformErrorKinds,
  type ConnectionRecord,
  type Connector,
  type ConnectorDeps,
  type Config,
} from '@verify-hub/core';

const deps: ConnectorDeps = { limiter: () => ({ schedule: (task) => task() }), saveCredentials: async () => undefined };
const connection = (settings: Record<string, unknown>): ConnectionRecord => ({ id: 'toy-1', platform: 'toy', label: 'Toy', createdAt: new Date(0).toISOString(), credentials: {}, settings });

/** What a factory was given, kept on the connector it builds. */
type Seen = Connector & { seen: { settings: unknown; environment: unknown } };
const toyEnvironment = platformEnvironment({ TOY_API_BASE: configUrl(['http:', 'https:']).default('https://api.toy.example') });
const toyModule = definePlatform({
  id: 'toy',
  label: 'Toy CRM',
  settings: z.strictObject({ account: z.string().min(1), pageSize: z.number().int().default(100) }),
  environment: toyEnvironment,
  writeBatchSize: 10,
  reconnectAdvice: 'reconnect Toy CRM',
  connector: platformConnector(
    { settings: z.strictObject({ account: z.string().min(1), pageSize: z.number().int().default(100) }), environment: toyEnvironment },
    (_connection, _deps, seen) => ({ platform: 'toy', seen }) as unknown as Seen,
    (scope) => {
      if (scope.kind !== 'all') throw new InputError('scope', 'all only');
    },
  ),
});

describe('PlatformRegistry (the one registry of modules and their connectors)', () => {
  it('builds the connector with its settings validated (defaults applied) and its environment read from the configuration', () => {
    const registry = new PlatformRegistry().register(toyModule);
    const built = registry.create(connection({ account: 'acme' }), deps, { TOY_API_BASE: 'http://127.0.0.1:9' } as unknown as Config) as Seen;
    expect(built.seen).toEqual({ settings: { account: 'acme', pageSize: 100 }, environment: { TOY_API_BASE: 'http://127.0.0.1:9' } });
    // Without a configuration, the module's defaults.
    expect((registry.create(connection({ account: 'acme' }), deps) as Seen).seen.environment).toEqual({ TOY_API_BASE: 'https://api.toy.example' });
  });

  it('refuses bad settings naming the field, before the connector is built', () => {
    const registry = new PlatformRegistry().register(toyModule);
    expect(() => registry.create(connection({ account: '' }), deps)).toThrow(InputError);
    expect(() => registry.create(connection({ account: '' }), deps)).toThrow(/^settings\.account:/);
    expect(() => registry.create(connection({ account: 'a', extra: 1 }), deps)).toThrow(/^settings:/);
  });

  it("answers the module's facts (scope check, reconnect words, write batch size) and forgets all of it on unregister", () => {
    const registry = new PlatformRegistry().register(toyModule);
    expect(registry.platforms()).toEqual(['toy']);
    expect(registry.reconnectAdvice('toy')).toBe('reconnect Toy CRM');
    expect(registry.writeBatchSize('toy')).toBe(10);
    expect(() => registry.checkScope('toy', { kind: 'list', value: '1' })).toThrow(/^scope:/);
    expect(registry.unregister('toy')).toBe(true);
    expect(registry.has('toy')).toBe(false);
    expect(registry.list()).toEqual([]);
    expect(() => registry.create(connection({ account: 'acme' }), deps)).toThrow(/no connector registered for "toy" \(known: none\)/);
  });

  it('a factory called directly (outside a registry) validates its own settings', () => {
    expect(() => toyModule.connector(connection({}), deps)).toThrow(/^settings\.account:/);
    expect((toyModule.connector(connection({ account: 'a' }), deps) as Seen).seen.settings).toEqual({ account: 'a', pageSize: 100 });
  });

  it('knows the modules definePlatform made, and nothing else', () => {
    expect(isPlatformModule(toyModule)).toBe(true);
    expect(isPlatformModule({ ...toyModule })).toBe(false);
    expect(isPlatformModule(undefined)).toBe(false);
  });
});

describe('credentialsRefused (the one decision of "credentials refused")', () => {
  it('is any AuthError, a platform\'s or the engine\'s, or a connect form\'s refusal, whatever the status', () => {
    expect(credentialsRefused(new (platformErrorKinds('toy').AuthError)('refused'))).toBe(true);
    expect(credentialsRefused(new EngineAuthError('refused', { status: 403 }))).toBe(true);
    expect(credentialsRefused(new PlatformRejectedError('apiKey', 'refused'))).toBe(true);
    expect(credentialsRefused(new VerifyHubError('not found', { status: 401 }))).toBe(false);
    expect(credentialsRefused(new (platformErrorKinds('toy').TransientError)('503'))).toBe(false);
  });
});
