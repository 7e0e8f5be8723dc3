import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { parseRateLimitReset, VerifyHubClient, type VerificationResult, type VerifyResponse } from '@verify-hub/client';
import { startEngineServer, type EngineServer } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from '../engine/helpers';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const PACKAGE = join(ROOT, 'clients', 'js');

/** Every field of ENGINE-API.md §2.1 field set B with its published type ("null" where the engine did not check). */
function expectPublishedShape(data: VerificationResult): void {
  const d = data as Record<string, unknown>;
  const isType = (value: unknown, type: string) => value === null || typeof value === type;
  expect(typeof d.email).toBe('string');
  expect(Number.isInteger(d.score) && (d.score as number) >= 0 && (d.score as number) <= 100).toBe(true);
  expect(['safe', 'risky', 'invalid', 'unknown']).toContain(d.risk);
  for (const field of ['syntax_valid', 'mx_found', 'is_disposable', 'is_role_account', 'is_catch_all', 'is_free_provider']) {
    expect([field, isType(d[field], 'boolean')]).toEqual([field, true]);
  }
  for (const field of ['smtp_check', 'spam_trap_risk']) expect([field, isType(d[field], 'string')]).toEqual([field, true]);
  const deliverability = d.deliverability as { grade: unknown; score: unknown; authentication: Record<string, unknown>; blacklist: Record<string, unknown> };
  expect(isType(deliverability.grade, 'string') && isType(deliverability.score, 'number')).toBe(true);
  for (const field of ['spf', 'dkim', 'dmarc']) expect([field, isType(deliverability.authentication[field], 'string')]).toEqual([field, true]);
  expect(isType(deliverability.blacklist.listed, 'boolean') && isType(deliverability.blacklist.listed_count, 'number') && isType(deliverability.blacklist.total_checks, 'number')).toBe(true);
  // Field set A's flags that do not collide with set B, and verify-hub's extension fields.
  for (const field of ['valid', 'deliverable', 'smtp_valid', 'disposable', 'role_based', 'free_email']) expect([field, isType(d[field], 'boolean')]).toEqual([field, true]);
  expect(typeof d.reason).toBe('string');
  expect(typeof d.billable).toBe('boolean');
}

describe('@verify-hub/client against a real `verify-hub engine`', () => {
  let world: MailWorld;
  let redis: Redis;
  let server: EngineServer;
  const prefix = `test:clients-js:${randomUUID()}:`;

  async function newKey(account: string, limits: { ratePerSecond?: number; monthlyQuota?: number } = {}): Promise<string> {
    const { key } = await server.store.createKey({ name: `js client ${account}`, account });
    await server.store.setAccountLimits(account, limits);
    return key;
  }

  beforeAll(async () => {
    world = await startMailWorld();
    world.smtp.script('john@acme-mail.com', 'accept');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    server = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: engineFor(world), defaultLimits: { ratePerSecond: 50, monthlyQuota: 1000 } });
  });
  afterAll(async () => {
    await server?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await world?.stop();
  });

  it('resolves to { data } holding the published result, exactly as the engine serves it', async () => {
    const apiKey = await newKey('published');
    const client = new VerifyHubClient({ apiKey, baseUrl: server.url });
    const { data, error } = await client.verify('john@acme-mail.com');
    expect(error).toBeNull();
    expectPublishedShape(data!);
    expect(data).toMatchObject({ email: 'john@acme-mail.com', risk: 'safe', syntax_valid: true, mx_found: true, is_disposable: false, valid: true });

    const raw = (await (await fetch(`${server.url}/api/v1/verify?email=john%40acme-mail.com`, { headers: { 'X-API-Key': apiKey } })).json()) as Record<string, unknown>;
    expect(Object.keys(data!).sort()).toEqual(Object.keys(raw).sort());
    expect({ ...data, checked_at: null }).toEqual({ ...raw, checked_at: null });

    const reserved = await client.verify('someone@example.com');
    expect(reserved.error).toBeNull();
    expectPublishedShape(reserved.data!);
    expect(reserved.data).toMatchObject({ risk: 'invalid', valid: false });
  });

  it('gives 401 UNAUTHORIZED for a wrong key, without the key in the error', async () => {
    const apiKey = `vh_${randomUUID()}${randomUUID()}`;
    const { data, error } = await new VerifyHubClient({ apiKey, baseUrl: server.url }).verify('john@acme-mail.com');
    expect(data).toBeNull();
    expect(error).toEqual({ status: 401, code: 'UNAUTHORIZED', message: expect.any(String) });
    expect(JSON.stringify(error)).not.toContain(apiKey);
  });

  it('gives a 400 error with the engine code for a missing email', async () => {
    const client = new VerifyHubClient({ apiKey: await newKey('bad-input'), baseUrl: server.url });
    const { data, error } = await client.verify('');
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 400, code: expect.any(String), message: expect.stringMatching(/email/i) });
  });

  it("waits for the engine's X-RateLimit-Reset on a rate-limit 429 and retries", async () => {
    const apiKey = await newKey('one-per-second', { ratePerSecond: 1 });
    const statuses: number[] = [];
    const counting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      statuses.push(res.status);
      return res;
    };
    const client = new VerifyHubClient({ apiKey, baseUrl: server.url, maxRetries: 4, fetch: counting });
    const answers = await Promise.all(['a@example.com', 'b@example.com'].map((email) => client.verify(email)));
    expect(answers.map((a) => [a.error, a.data?.email])).toEqual([
      [null, 'a@example.com'],
      [null, 'b@example.com'],
    ]);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
  });

  it('returns a quota 429 at once as QUOTA_EXCEEDED instead of waiting for next month', async () => {
    const apiKey = await newKey('no-quota', { monthlyQuota: 0 });
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const { data, error } = await new VerifyHubClient({ apiKey, baseUrl: server.url, fetch: counting }).verify('x@example.com');
    expect(data).toBeNull();
    expect(error).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
    expect(error!.retryAfterMs).toBeGreaterThan(0);
    expect(requests).toBe(1);
  });

  describe('the built package', () => {
    let dir: string;
    beforeAll(async () => {
      // Build the package as `npm run build` does, into a scratch node_modules, so resolution goes
      // through its package.json `exports` map like an installed copy.
      dir = await mkdtemp(join(tmpdir(), 'verify-hub-client-'));
      const installed = join(dir, 'node_modules', '@verify-hub', 'client');
      await mkdir(installed, { recursive: true });
      await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(PACKAGE, 'tsconfig.json'), '--outDir', join(installed, 'dist'), '--tsBuildInfoFile', join(dir, 'build.tsbuildinfo')], { cwd: ROOT });
      await cp(join(PACKAGE, 'package.json'), join(installed, 'package.json'));
    }, 120_000);
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const script = (load: string) => `${load}
      new VerifyHubClient({ apiKey: process.env.VH_KEY, baseUrl: process.env.VH_URL }).verify('john@acme-mail.com')
        .then((r) => console.log(JSON.stringify({ risk: r.data && r.data.risk, error: r.error, type: typeof VerifyHubClient })));`;

    it.each([
      ['require (CommonJS)', ['-e', script("const { VerifyHubClient } = require('@verify-hub/client');")]],
      ['import (ES module)', ['--input-type=module', '-e', script("import { VerifyHubClient } from '@verify-hub/client';")]],
    ])('works with %s from the built output, against the engine', async (_name, args) => {
      const apiKey = await newKey('built');
      const { stdout } = await run(process.execPath, args, { cwd: dir, env: { ...process.env, VH_KEY: apiKey, VH_URL: server.url } });
      expect(JSON.parse(stdout)).toEqual({ risk: 'safe', error: null, type: 'function' });
    });

    it('ships only dist (no source maps), the README, LICENSE and package.json, with no runtime dependencies', async () => {
      const pkg = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(pkg.name).toBe('@verify-hub/client');
      expect(pkg.dependencies).toBeUndefined();
      expect(pkg.files).toEqual(['dist', '!dist/**/*.map', 'README.md', 'CHANGELOG.md']); // LICENSE too: npm always packs it
    });
  });
});

describe('@verify-hub/client against a scripted engine (429, timeouts, network)', () => {
  type Handler = (req: IncomingMessage, res: ServerResponse) => void;
  let fake: Server;
  let url: string;
  let handlers: Handler[] = [];
  const seen: { url: string; key: string | undefined }[] = [];
  const apiKey = `vh_${randomUUID()}`;
  const hung: ServerResponse[] = [];

  const ok: Handler = (req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ email: new URL(req.url!, 'http://x').searchParams.get('email'), score: 95, risk: 'safe', extra_field: 'kept' }));
  };
  const tooMany =
    (reset: () => string | undefined, code?: string): Handler =>
    (_req, res) => {
      const value = reset();
      if (value !== undefined) res.setHeader('X-RateLimit-Reset', value);
      res.statusCode = 429;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: 'Too many requests', ...(code ? { code } : {}) }));
    };
  const client = (options: Partial<ConstructorParameters<typeof VerifyHubClient>[0]> = {}) => new VerifyHubClient({ apiKey, baseUrl: url, ...options });

  beforeAll(async () => {
    fake = createServer((req, res) => {
      seen.push({ url: req.url!, key: req.headers['x-api-key'] as string | undefined });
      const handler = handlers.shift() ?? ok;
      handler(req, res);
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/`;
  });
  beforeEach(() => {
    handlers = [];
    seen.length = 0;
  });
  afterAll(async () => {
    for (const res of hung) res.destroy();
    fake.closeAllConnections();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  });

  it.each([
    ['epoch milliseconds', () => String(Date.now() + 300)],
    ['epoch seconds', () => String(Math.ceil(Date.now() / 1000))],
    ['seconds from now', () => '0.3'],
  ])('waits until an X-RateLimit-Reset in %s, then retries', async (_form, reset) => {
    handlers = [tooMany(reset, 'RATE_LIMITED')];
    const started = Date.now();
    const expectedResetAt = parseRateLimitReset(reset(), started)!;
    const answer = await client().verify('john@acme-mail.com');
    expect(answer).toEqual({ data: { email: 'john@acme-mail.com', score: 95, risk: 'safe', extra_field: 'kept' }, error: null });
    expect(seen).toHaveLength(2);
    expect(Date.now()).toBeGreaterThanOrEqual(expectedResetAt - 20);
  });

  it('gives up after maxRetries with the last 429 as RATE_LIMITED', async () => {
    handlers = [tooMany(() => String(Date.now() + 50)), tooMany(() => String(Date.now() + 50)), tooMany(() => String(Date.now() + 50))];
    const { data, error } = await client({ maxRetries: 2 }).verify('a@acme-mail.com');
    expect(data).toBeNull();
    expect(error).toEqual({ status: 429, code: 'RATE_LIMITED', message: 'Too many requests', retryAfterMs: expect.any(Number) });
    expect(seen).toHaveLength(3);
  });

  it('does not wait for a quota 429 (by code, or by a reset hours away) nor for a rate reset beyond maxWaitMs', async () => {
    const cases: [Handler, string, number][] = [
      [tooMany(() => String(Date.now() + 1000), 'QUOTA_EXCEEDED'), 'QUOTA_EXCEEDED', 500],
      [tooMany(() => String(Math.ceil(Date.now() / 1000) + 3 * 3600)), 'QUOTA_EXCEEDED', 3 * 3600_000 - 2000],
      [tooMany(() => '120', 'RATE_LIMITED'), 'RATE_LIMITED', 119_000],
    ];
    for (const [handler, code, atLeast] of cases) {
      handlers = [handler];
      seen.length = 0;
      const { error } = await client({ maxWaitMs: 60_000 }).verify('a@acme-mail.com');
      expect(error).toMatchObject({ status: 429, code });
      expect(error!.retryAfterMs).toBeGreaterThan(atLeast);
      expect(seen).toHaveLength(1);
    }
  });

  it('sends the key only in X-API-Key, never in the URL or an error', async () => {
    handlers = [
      ok,
      (_req, res) => {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: `key ${apiKey} is revoked`, code: 'UNAUTHORIZED' }));
      },
    ];
    await client().verify('x+tag@acme-mail.com');
    const { error } = await client().verify('x@acme-mail.com');
    expect(seen.map((s) => s.key)).toEqual([apiKey, apiKey]);
    expect(seen[0]!.url).toBe('/api/v1/verify?email=x%2Btag%40acme-mail.com');
    expect(seen.some((s) => s.url.includes(apiKey))).toBe(false);
    expect(error).toEqual({ status: 401, code: 'UNAUTHORIZED', message: 'key [redacted] is revoked' });
  });

  it('gives TIMEOUT, NETWORK_ERROR, SERVER_ERROR and BAD_RESPONSE errors instead of throwing', async () => {
    handlers = [(_req, res) => void hung.push(res)];
    expect((await client({ timeoutMs: 200 }).verify('slow@acme-mail.com')).error).toEqual({ status: null, code: 'TIMEOUT', message: 'no answer from the engine within 200 ms' });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const down: VerifyResponse = await new VerifyHubClient({ apiKey, baseUrl: `http://127.0.0.1:${port}` }).verify('a@acme-mail.com');
    expect(down.error).toMatchObject({ status: null, code: 'NETWORK_ERROR', message: expect.stringContaining('ECONNREFUSED') });

    handlers = [
      (_req, res) => {
        res.statusCode = 503;
        res.end('upstream down');
      },
      (_req, res) => res.end('<html>not json</html>'),
    ];
    expect((await client().verify('a@acme-mail.com')).error).toEqual({ status: 503, code: 'SERVER_ERROR', message: 'the engine answered HTTP 503' });
    expect((await client().verify('a@acme-mail.com')).error).toMatchObject({ status: 200, code: 'BAD_RESPONSE' });
  });

  it('refuses a missing key or address at construction, without echoing the key', () => {
    expect(() => new VerifyHubClient({ apiKey: '', baseUrl: url })).toThrow(/^apiKey: /);
    expect(() => new VerifyHubClient({ apiKey, baseUrl: 'ftp://x' })).toThrow(/^baseUrl: /);
    expect(JSON.stringify(client())).not.toContain(apiKey);
  });
});

describe('generated types', () => {
  const generator = join(PACKAGE, 'scripts', 'generate.mjs');

  it('src/generated/engine-api.ts is what openapi-typescript makes of engine/openapi.yaml today', async () => {
    const result = await run(process.execPath, [generator, '--check'], { cwd: ROOT }).catch((error: { stderr: string; code: number }) => error);
    expect('stderr' in result ? result.stderr : '').toBe('');
  });

  it('the check fails when the description changes and the types are not regenerated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'verify-hub-drift-'));
    try {
      const spec = await readFile(join(ROOT, 'engine', 'openapi.yaml'), 'utf8');
      const changed = spec.replace(/^paths:\n/m, "paths:\n  /drift-probe:\n    get:\n      responses:\n        '200':\n          description: ok\n");
      expect(changed).not.toBe(spec);
      await writeFile(join(dir, 'openapi.yaml'), changed);
      const failure = await run(process.execPath, [generator, '--check', '--spec', join(dir, 'openapi.yaml')], { cwd: ROOT }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toMatch(/has drifted from .*openapi\.yaml/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
