import { Writable } from 'node:stream';
import { z } from 'zod';
import { pipelineSettings } from '../../cli/src/pipeline-settings';
import { configSecret, configUrl, ConfigError, createLocalLimiter, createLogger, definePlatform, InputError, loadConfig, platformEnvironment, SecretBox, secretConfigNames } from '@verify-hub/core';

describe('loadConfig', () => {
  it('applies defaults', () => {
    expect(loadConfig({})).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379', PORT: 8080, ENGINE_PORT: 8081, LOG_LEVEL: 'info' });
  });
  it('reads and coerces values', () => {
    expect(loadConfig({ ENGINE_URL: 'http://127.0.0.1:9999', PORT: '9000', PATH: '/usr/bin' })).toMatchObject({ ENGINE_URL: 'http://127.0.0.1:9999', PORT: 9000 });
  });
  it('stops on an unknown variable of ours, naming it', () => {
    expect(() => loadConfig({ ENGINE_APIKEY: 'x' })).toThrow(ConfigError);
    expect(() => loadConfig({ ENGINE_APIKEY: 'x' })).toThrow(/^ENGINE_APIKEY: unknown configuration variable/);
  });
  it('names a malformed variable and never echoes a secret', () => {
    let err: unknown;
    try {
      loadConfig({ HUB_SECRET_KEY: 'short-secret-value' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^HUB_SECRET_KEY: /);
    expect((err as Error).message).not.toContain('short-secret-value');
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/^REDIS_URL: must be a URL/);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/^PORT: /);
  });
  it("hands the run workers' job hold settings to the pipeline, and refuses a hold too short to outlast a busy event loop", () => {
    const settings = pipelineSettings(loadConfig({ VERIFY_HUB_JOB_LOCK_MS: '5000', VERIFY_HUB_STALLED_INTERVAL_MS: '2000' }));
    expect({ lock: settings.lockDurationMs, stalled: settings.stalledIntervalMs }).toEqual({ lock: 5000, stalled: 2000 });
    // Unset: BullMQ's defaults (jobHoldOptions leaves them out).
    expect(pipelineSettings(loadConfig({})).lockDurationMs).toBeUndefined();
    expect(() => loadConfig({ VERIFY_HUB_JOB_LOCK_MS: '500' })).toThrow(/^VERIFY_HUB_JOB_LOCK_MS: /);
  });
});

describe("a registered platform's variables", () => {
  const toyEnvironment = platformEnvironment({ TOY_CRM_API_KEY: configSecret.optional(), TOY_CRM_API_BASE: configUrl(['https:']).default('https://toy.example'), TOY_CRM_REGION: z.enum(['eu', 'us']).optional() }, ['TOY_CRM_API_KEY']);
  const toy = definePlatform({ id: 'toy-crm', label: 'Toy CRM', connector: () => { throw new Error('not used'); }, environment: toyEnvironment });
  it('are validated with core\'s, defaults applied, and read typed by the module', () => {
    const config = loadConfig({ TOY_CRM_API_KEY: 'toy-secret', PORT: '9000' }, { platforms: [toy] });
    expect(config).toMatchObject({ TOY_CRM_API_KEY: 'toy-secret', TOY_CRM_API_BASE: 'https://toy.example', PORT: 9000 });
    expect(toyEnvironment.read(config)).toEqual({ TOY_CRM_API_KEY: 'toy-secret', TOY_CRM_API_BASE: 'https://toy.example' });
    // Loaded without the module, its values are not there; reading still applies its defaults.
    expect(loadConfig({ TOY_CRM_API_KEY: 'toy-secret' })).not.toHaveProperty('TOY_CRM_API_KEY');
    expect(toyEnvironment.read(loadConfig({}))).toEqual({ TOY_CRM_API_BASE: 'https://toy.example' });
  });
  it('stop on a typo under the module\'s prefix, and name a malformed one without echoing a secret', () => {
    expect(() => loadConfig({ TOY_CRM_APIKEY: 'x' }, { platforms: [toy] })).toThrow(/^TOY_CRM_APIKEY: unknown configuration variable/);
    expect(() => loadConfig({ TOY_CRM_REGION: 'mars' }, { platforms: [toy] })).toThrow(/^TOY_CRM_REGION: /);
    let err: unknown;
    try {
      loadConfig({ TOY_CRM_API_KEY: 'toy-secret', TOY_CRM_API_BASE: 'http://toy-secret.example' }, { platforms: [toy] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^TOY_CRM_API_BASE: must be a URL/);
    expect((err as Error).message).not.toContain('toy-secret');
  });
  it('are secrets when the module says so, beside core\'s', () => {
    expect([...secretConfigNames([toy])].sort()).toEqual(['ENGINE_API_KEY', 'ENGINE_SMTP_PROXY', 'HUB_ADMIN_TOKEN', 'HUB_SECRET_KEY', 'TOY_CRM_API_KEY']);
  });
  it('must start with the module\'s prefix', () => {
    expect(() => definePlatform({ id: 'toy-crm', label: 'Toy CRM', connector: toy.connector, environment: platformEnvironment({ TOY_KEY: configSecret.optional() }) })).toThrow(/TOY_KEY must start with TOY_CRM_/);
  });
});

describe('SecretBox', () => {
  const key = 'k'.repeat(40);
  it('seals and opens; the sealed form does not contain the secret', () => {
    const box = new SecretBox(key);
    const sealed = box.seal('pat-na1-secret-token');
    expect(sealed).not.toContain('pat-na1-secret-token');
    expect(sealed).not.toBe(box.seal('pat-na1-secret-token'));
    expect(box.open(sealed)).toBe('pat-na1-secret-token');
  });
  it('refuses a tampered value or a wrong key', () => {
    const sealed = new SecretBox(key).seal('token');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => new SecretBox(key).open(parts.join('.'))).toThrow(InputError);
    expect(() => new SecretBox('z'.repeat(40)).open(sealed)).toThrow(/wrong key or tampered/);
  });
  it('needs a long enough key', () => {
    expect(() => new SecretBox('short')).toThrow(/^HUB_SECRET_KEY/);
  });
});

describe('createLocalLimiter', () => {
  it('never runs more than maxConcurrent at once', async () => {
    const limiter = createLocalLimiter({ maxConcurrent: 3 });
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, () =>
        limiter.schedule(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 5));
          running--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });
  it('never starts more than count calls in any window', async () => {
    const limiter = createLocalLimiter({ perInterval: { count: 5, intervalMs: 300 } });
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 12 }, () => limiter.schedule(async () => void starts.push(Date.now()))));
    starts.sort((a, b) => a - b);
    // Without the limiter all 12 start within a millisecond or two; the slack covers event-loop delay
    // between the limiter's start and the function's first line on a loaded machine.
    for (let i = 5; i < starts.length; i++) expect(starts[i]! - starts[i - 5]!).toBeGreaterThanOrEqual(250);
    expect(starts[11]! - starts[0]!).toBeGreaterThanOrEqual(500);
  });
});

describe('createLogger', () => {
  it('redacts keys, tokens and secrets', () => {
    const lines: string[] = [];
    const destination = new Writable({ write(chunk, _enc, cb) { lines.push(chunk.toString()); cb(); } });
    const log = createLogger({ level: 'info', destination });
    log.info({ apiKey: 'k-123', connection: { accessToken: 'tok-456', secret: 's-789' }, headers: { 'x-api-key': 'k-000' } }, 'hello');
    const out = lines.join('');
    for (const secret of ['k-123', 'tok-456', 's-789', 'k-000']) expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });
});
