import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { join } from 'node:path';
import { EngineAuthError, EngineClient, EngineQuotaError, EngineRateLimitError, engineErrorFromResponse, readEngineAnswer } from '@verify-hub/core';
import { startEngineServer, type EngineServer } from '@verify-hub/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';
import { validatingProxy, type ValidatingProxy } from './openapi-contract';
import { until } from '../setup/until';

// The validator is a dev dependency of the engine workspace, installed under engine/node_modules.
const SwaggerParser = require(require.resolve('@apidevtools/swagger-parser', { paths: [join(__dirname, '..', '..', 'engine')] })) as {
  validate(api: string): Promise<unknown>;
  dereference(api: string): Promise<unknown>;
};

describe('engine HTTP API', () => {
  let world: MailWorld;
  let redis: Redis;
  let server: EngineServer;
  // Every request of this suite goes through it: each answer is validated against openapi.yaml.
  let proxy: ValidatingProxy;
  const prefix = `test:engine:${randomUUID()}:`;
  /** Statuses of the verify operation validated by the proxies of servers started inside a test. */
  const validatedElsewhere = new Set<number>();

  // The body is read at once: an answer whose body a test never reads keeps its connection paused, and
  // that socket outlived the suite (it never sees the server close it).
  const get = async (path: string, key?: string) => {
    const res = await fetch(`${proxy.url}${path}`, { headers: key ? { 'X-API-Key': key } : {} });
    const body = await res.arrayBuffer();
    return new Response([204, 205, 304].includes(res.status) ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const verify = (email: string, key?: string) => get(`/api/v1/verify?email=${encodeURIComponent(email)}`, key);
  async function newKey(account: string, limits: { ratePerSecond?: number; monthlyQuota?: number } = {}): Promise<string> {
    const { key } = await server.store.createKey({ name: `key for ${account}`, account });
    await server.store.setAccountLimits(account, limits);
    return key;
  }

  beforeAll(async () => {
    world = await startMailWorld();
    world.smtp.script('john@acme-mail.com', 'accept').script('grey@acme-mail.com', 'greylist');
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    server = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: engineFor(world), defaultLimits: { ratePerSecond: 50, monthlyQuota: 1000 } });
    proxy = await validatingProxy(server.url);
  });
  afterEach(() => {
    expect(proxy?.invalid()).toEqual([]);
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await world.stop();
  });

  describe('keys', () => {
    it('creates a key shown once, stored only as its SHA-256', async () => {
      const { key, record } = await server.store.createKey({ name: 'CRM sync', account: 'acme' });
      expect(key).toMatch(/^vh_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
      expect(record).toMatchObject({ name: 'CRM sync', account: 'acme', revokedAt: null });
      expect(record.display).toBe(`${key.slice(0, 7)}…`);
      expect(JSON.stringify(await server.store.listKeys())).not.toContain(key);
      const dump: string[] = [];
      for (const k of await redis.keys(`${prefix}*`)) {
        const type = await redis.type(k);
        dump.push(k, type === 'hash' ? JSON.stringify(await redis.hgetall(k)) : type === 'string' ? String(await redis.get(k)) : type);
      }
      expect(dump.join('\n')).not.toContain(key.slice(3));
      expect(dump.join('\n')).toContain(createHash('sha256').update(key).digest('hex'));
    });

    it('two keys never collide, and a custom prefix is kept', async () => {
      const a = await server.store.createKey({ name: 'one', keyPrefix: 'acme' });
      const b = await server.store.createKey({ name: 'two', keyPrefix: 'acme' });
      expect(a.key).toMatch(/^acme_/);
      expect(a.key).not.toBe(b.key);
    });

    it('registers an operator-chosen key (ENGINE_API_KEY) once, hashed, and keeps it revoked once revoked', async () => {
      const operatorKey = `compose-shared-secret-${randomUUID()}`;
      const first = await server.store.ensureKey(operatorKey, { name: 'ENGINE_API_KEY' });
      const again = await server.store.ensureKey(operatorKey, { name: 'ENGINE_API_KEY' });
      expect(first.created).toBe(true);
      expect(again).toEqual({ record: first.record, created: false });
      expect((await verify('x@example.com', operatorKey)).status).toBe(200);
      await server.store.revokeKey(first.record.id);
      expect((await server.store.ensureKey(operatorKey, { name: 'ENGINE_API_KEY' })).record.revokedAt).toEqual(expect.any(String));
      expect((await verify('x@example.com', operatorKey)).status).toBe(401);
      await expect(server.store.ensureKey('short', { name: 'x' })).rejects.toThrow(/^ENGINE_API_KEY: /);
    });

    it('a server started with bootstrapKey accepts it at once', async () => {
      const bootstrapKey = `bootstrap-secret-${randomUUID()}`;
      const other = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: engineFor(world), bootstrapKey });
      const otherProxy = await validatingProxy(other.url);
      try {
        const res = await fetch(`${otherProxy.url}/api/v1/verify?email=x@example.com`, { headers: { 'X-API-Key': bootstrapKey } });
        expect(res.status).toBe(200);
        expect(otherProxy.invalid()).toEqual([]);
      } finally {
        await otherProxy.close();
        await other.close();
      }
    });

    it('rejects bad names with an error naming the field', async () => {
      await expect(server.store.createKey({ name: '' })).rejects.toThrow(/^name: /);
      await expect(server.store.createKey({ name: 'ok', account: '../etc' })).rejects.toThrow(/^account: /);
    });
  });

  describe('authentication', () => {
    it.each([
      ['no key', undefined],
      ['a malformed key', 'not-a-key'],
      ['an unknown well-formed key', `vh_${Buffer.alloc(32, 7).toString('base64url')}`],
    ])('answers 401 UNAUTHORIZED for %s', async (_label, key) => {
      const res = await verify('john@acme-mail.com', key);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    });

    it('a revoked key is refused at once', async () => {
      const { key, record } = await server.store.createKey({ name: 'temp', account: 'revoke-test' });
      expect((await verify('x@example.com', key)).status).toBe(200);
      await server.store.revokeKey(record.id);
      const res = await verify('x@example.com', key);
      expect(res.status).toBe(401);
      expect((await server.store.listKeys()).find((k) => k.id === record.id)?.revokedAt).toEqual(expect.any(String));
    });
  });

  describe('verification answers', () => {
    it('answers every field of set B with the published types, set A\'s other fields and the extensions, with rate and quota headers', async () => {
      const key = await newKey('answers');
      const res = await verify('john@acme-mail.com', key);
      expect(res.status).toBe(200);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'x-quota-limit', 'x-quota-remaining', 'x-quota-reset']) expect(res.headers.get(h)).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-limit')).toBe('50');
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        // field set B, with ENGINE-API.md's example authentication values
        email: 'john@acme-mail.com', score: 95, risk: 'safe', syntax_valid: true, mx_found: true, smtp_check: 'deliverable',
        is_disposable: false, is_role_account: false, is_catch_all: false, is_free_provider: false, spam_trap_risk: 'none',
        deliverability: { grade: 'A', score: 100, authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listed_count: 0, total_checks: 10 } },
        // field set A's fields that do not collide with set B's
        valid: true, deliverable: true, smtp_valid: true, disposable: false, role_based: false, free_email: false,
        // extensions
        reason: 'deliverable', normalized: 'john@acme-mail.com', catch_all_confidence: 0.05, checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), billable: true, did_you_mean: null,
        domain_exists: true, implicit_mx: false, null_mx: false, mx_private: true, smtp_connect: true, smtp_greeting: true, starttls: true, greylisted: false,
        mailbox_full: false, mailbox_disabled: false, smtp_reply: { code: 250, enhanced: null, class: 'accepted' }, provider: null, sub_addressing: false,
        gibberish: false, reserved_domain: false, retry_after_seconds: null, syntax_problem: null,
      });
      // core reads it back to the same verdict, with nothing dropped
      const read = readEngineAnswer(body, 'john@acme-mail.com', 'john@acme-mail.com');
      expect(read).toMatchObject({ ok: true, warnings: [], verification: { risk: 'safe', score: 95, reason: 'deliverable', checks: { smtp: true, smtpCheck: 'deliverable', catchAll: false, catchAllConfidence: 0.05 } } });
    });

    it('a check not made is null, never false: a reserved domain has no SMTP conversation', async () => {
      const key = await newKey('reserved');
      const body = (await (await verify('someone@example.com', key)).json()) as Record<string, unknown>;
      expect(body).toMatchObject({
        risk: 'invalid', reason: 'reserved_domain', reserved_domain: true, smtp_check: 'not_checked', smtp_valid: null, is_catch_all: null, mx_found: null,
        valid: false, deliverable: false, smtp_connect: null, smtp_reply: null, catch_all_confidence: null,
        deliverability: { grade: null, score: null, authentication: { spf: null, dkim: null, dmarc: null }, blacklist: { listed: null, listed_count: null, total_checks: null } },
      });
    });

    it('every answer carries the same fields, whatever the path through the engine', async () => {
      const key = await newKey('same-fields');
      world.smtp.script('full@acme-mail.com', 'full');
      const answers = await Promise.all(['john@acme-mail.com', 'grey@acme-mail.com', 'nobody@acme-mail.com', 'full@acme-mail.com', 'x@example.com', 'not an address', 'a@b@c'].map(async (e) => (await verify(e, key)).json() as Promise<Record<string, unknown>>));
      const fields = Object.keys(answers[0]!);
      for (const a of answers) expect(Object.keys(a)).toEqual(fields);
      const [, grey, nobody, full, , syntax] = answers;
      expect(grey).toMatchObject({ risk: 'unknown', smtp_check: 'greylisted', greylisted: true, retry_after_seconds: expect.any(Number), valid: null, deliverable: null, smtp_valid: null, billable: false });
      expect(nobody).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found', smtp_check: 'undeliverable', smtp_valid: false, deliverable: false, smtp_reply: { code: 550, enhanced: '5.1.1', class: 'mailbox_not_found' } });
      expect(full).toMatchObject({ risk: 'risky', reason: 'mailbox_full', smtp_check: 'mailbox_full', mailbox_full: true, smtp_valid: true });
      expect(syntax).toMatchObject({ risk: 'invalid', reason: 'syntax', syntax_valid: false, syntax_problem: expect.any(String), smtp_check: 'not_checked', smtp_valid: null, mx_found: null, billable: false });
    });

    it.each([
      ['missing', '', 'email: required'],
      ['empty', '?email=', 'email: required (it is empty)'],
      ['repeated', '?email=a@acme-mail.com&email=b@acme-mail.com', 'email: give one address, not 2'],
      ['too long', `?email=${'a'.repeat(310)}@acme-mail.com`, 'email: longer than 320 characters'],
    ])('answers 400 naming the field when email is %s, still with rate headers', async (_label, query, error) => {
      const key = await newKey('bad-input');
      const res = await get(`/api/v1/verify${query}`, key);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error, code: 'INVALID_REQUEST', field: 'email' });
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(await server.store.usage('bad-input')).toBe(0);
    });
  });

  describe('limits', () => {
    it('rate limit per account, shared by all its keys: 429 RATE_LIMITED with headers', async () => {
      const first = await newKey('rate-acct', { ratePerSecond: 3 });
      const { key: second } = await server.store.createKey({ name: 'second key', account: 'rate-acct' });
      const before = Date.now();
      const answers = await Promise.all([first, second, first, second, first].map((k) => verify('x@example.com', k)));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const limited = answers.find((r) => r.status === 429)!;
      expect(await limited.json()).toEqual({ error: expect.any(String), code: 'RATE_LIMITED' });
      expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      const reset = Number(limited.headers.get('x-ratelimit-reset')) * 1000;
      expect(reset).toBeGreaterThanOrEqual(before - 1000);
      expect(reset).toBeLessThanOrEqual(Date.now() + 2000);
      const error = engineErrorFromResponse(429, (n) => limited.headers.get(n), { code: 'RATE_LIMITED' });
      expect(error).toBeInstanceOf(EngineRateLimitError);
      expect(error).not.toBeInstanceOf(EngineQuotaError);
    });

    it('monthly quota: 429 QUOTA_EXCEEDED once used up, resetting at the start of next month', async () => {
      const key = await newKey('quota-acct', { monthlyQuota: 2 });
      expect((await verify('a@example.com', key)).status).toBe(200);
      expect((await verify('b@example.com', key)).status).toBe(200);
      const res = await verify('c@example.com', key);
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual({ error: expect.any(String), code: 'QUOTA_EXCEEDED' });
      const now = new Date();
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
      expect(res.headers.get('x-ratelimit-reset')).toBe(String(nextMonth));
      expect(res.headers.get('x-ratelimit-limit')).toBe('2');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(await server.store.usage('quota-acct')).toBe(2);
    });

    it('unknown results are not counted against the quota', async () => {
      const key = await newKey('unknown-acct', { monthlyQuota: 1 });
      for (let i = 0; i < 3; i++) {
        const res = await verify('grey@acme-mail.com', key);
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({ risk: 'unknown', reason: 'greylisted', billable: false });
      }
      expect(await server.store.usage('unknown-acct')).toBe(0);
      expect((await verify('john@acme-mail.com', key)).status).toBe(200);
      expect(await server.store.usage('unknown-acct')).toBe(1);
      expect((await verify('john@acme-mail.com', key)).status).toBe(429);
    });

    it('syntax-invalid addresses are answered but not billed', async () => {
      const key = await newKey('syntax-acct', { monthlyQuota: 1 });
      const res = await verify('not an address', key);
      expect(await res.json()).toMatchObject({ risk: 'invalid', reason: 'syntax', billable: false });
      expect(await server.store.usage('syntax-acct')).toBe(0);
    });
  });

  describe('Idempotency-Key (a verify-hub extension): what a client killed mid-request paid for is collected, not bought again', () => {
    /** The server's verifier, held at a gate: the test decides when the engine's answer is ready. */
    function gatedVerifier() {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const inner = engineFor(world);
      let calls = 0;
      return {
        open,
        calls: () => calls,
        verifier: { verify: async (email: string) => { calls++; await opened; return inner.verify(email); } },
      };
    }

    it('a request cut off mid-way is billed once; its replay waits (409) while it runs, then gets the same answer, not billed', async () => {
      const gate = gatedVerifier();
      const other = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: gate.verifier, defaultLimits: { ratePerSecond: 50, monthlyQuota: 100 } });
      const otherProxy = await validatingProxy(other.url);
      try {
        const { key } = await other.store.createKey({ name: 'idem', account: 'idem-acct' });
        const ask = (signal?: AbortSignal) => fetch(`${otherProxy.url}/api/v1/verify?email=john@acme-mail.com`, { headers: { 'X-API-Key': key, 'Idempotency-Key': 'run-1:john' }, signal });
        const killed = new AbortController();
        const first = ask(killed.signal).catch((e: unknown) => e);
        await until(() => gate.calls() === 1, 20_000);
        killed.abort(); // the client dies; the engine goes on and bills
        await first;
        const racing = await ask();
        expect(racing.status).toBe(409);
        expect(racing.headers.get('retry-after')).toBe('1');
        expect(await racing.json()).toEqual({ error: expect.stringMatching(/^Idempotency-Key: /), code: 'IDEMPOTENCY_KEY_IN_USE', field: 'Idempotency-Key' });
        gate.open();
        // The engine finishes the cut-off request in its own time: until then a replay is told to wait.
        let replay!: Response;
        await until(async () => (replay = await ask()).status !== 409, 20_000);
        expect(replay.status).toBe(200);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(await replay.json()).toMatchObject({ email: 'john@acme-mail.com', risk: 'safe', billable: true });
        // core's client sends the key and retries the 409 a replay can meet; either way one credit in all
        const client = new EngineClient({ baseUrl: otherProxy.url, apiKey: key, retries: 2, backoffBaseMs: 5 });
        await expect(client.verify('john@acme-mail.com', { idempotencyKey: 'run-1:john' })).resolves.toMatchObject({ risk: 'safe', billable: true });
        expect(gate.calls()).toBe(1);
        expect(await other.store.usage('idem-acct')).toBe(1);
        // without the key, or under another one, the address is verified (and billed) again
        await expect(client.verify('john@acme-mail.com', { idempotencyKey: 'run-2:john' })).resolves.toMatchObject({ risk: 'safe' });
        expect(await other.store.usage('idem-acct')).toBe(2);
        expect(otherProxy.invalid()).toEqual([]);
        for (const a of otherProxy.answers) if (a.path === '/api/v1/verify') validatedElsewhere.add(a.status);
      } finally {
        gate.open();
        await otherProxy.close();
        await other.close();
      }
    });

    it('keeps only billed answers: after an unknown the same key verifies afresh, and nothing is billed', async () => {
      const key = await newKey('idem-unknown');
      const ask = () => fetch(`${proxy.url}/api/v1/verify?email=grey@acme-mail.com`, { headers: { 'X-API-Key': key, 'Idempotency-Key': 'recheck-key' } });
      for (let i = 0; i < 2; i++) {
        const res = await ask();
        expect(res.headers.get('idempotent-replayed')).toBeNull();
        expect(await res.json()).toMatchObject({ risk: 'unknown', billable: false });
      }
      expect(await server.store.usage('idem-unknown')).toBe(0);
    });

    it('refuses a key reused for another address (422) and a malformed key (400), naming the header', async () => {
      const key = await newKey('idem-reuse');
      const ask = (email: string, idem: string) => fetch(`${proxy.url}/api/v1/verify?email=${email}`, { headers: { 'X-API-Key': key, 'Idempotency-Key': idem } });
      expect((await ask('john@acme-mail.com', 'one-key')).status).toBe(200);
      const reused = await ask('nobody@acme-mail.com', 'one-key');
      expect(reused.status).toBe(422);
      expect(await reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
      const bad = await ask('john@acme-mail.com', 'x'.repeat(256));
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ code: 'INVALID_REQUEST', field: 'Idempotency-Key' });
      expect(await server.store.usage('idem-reuse')).toBe(1);
    });
  });

  describe("core's EngineClient, unchanged, against this server", () => {
    it('maps results, 401, 429 rate and 429 quota to its typed outcomes', async () => {
      const key = await newKey('client-acct', { monthlyQuota: 3 });
      const client = new EngineClient({ baseUrl: proxy.url, apiKey: key, retries: 0 });
      const safe = await client.verify('john@acme-mail.com');
      expect(safe).toMatchObject({ risk: 'safe', reason: 'deliverable', score: 95, billable: true, checks: { smtp: true, smtpCheck: 'deliverable', catchAll: false, domainExists: true, starttls: true } });
      expect(safe.deliverability?.authentication).toEqual({ spf: 'strict', dkim: 'found', dmarc: 'reject' });
      expect(safe.deliverability?.blacklist).toEqual({ listed: false, listedCount: 0, totalChecks: 10 });
      await expect(client.verify('nobody@acme-mail.com')).resolves.toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found' });
      await expect(client.verify('grey@acme-mail.com')).resolves.toMatchObject({ risk: 'unknown', billable: false });
      await expect(client.verify('x@example.com')).resolves.toMatchObject({ risk: 'invalid', reason: 'reserved_domain', checks: { smtp: null, smtpCheck: 'not_checked' } });
      await expect(client.verify('y@example.com')).rejects.toBeInstanceOf(EngineQuotaError);
      await expect(new EngineClient({ baseUrl: proxy.url, apiKey: 'vh_wrong', retries: 0 }).verify('john@acme-mail.com')).rejects.toBeInstanceOf(EngineAuthError);
      const limitedKey = await newKey('client-rate', { ratePerSecond: 1 });
      const limitedClient = new EngineClient({ baseUrl: proxy.url, apiKey: limitedKey, retries: 0 });
      const outcomes = await Promise.allSettled([limitedClient.verify('a@example.com'), limitedClient.verify('b@example.com')]);
      const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(EngineRateLimitError);
      expect(rejected.reason).not.toBeInstanceOf(EngineQuotaError);
      expect((rejected.reason as EngineRateLimitError).waitMs()).toBeLessThanOrEqual(2000);
    });
  });

  describe('service endpoints', () => {
    it('serves an OpenAPI 3.0 description that a standard validator accepts', async () => {
      const res = await get('/openapi.yaml');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/yaml/);
      const api = (await SwaggerParser.validate(`${server.url}/openapi.yaml`)) as { openapi: string; paths: Record<string, unknown> };
      expect(api.openapi).toMatch(/^3\.0\./);
      expect(Object.keys(api.paths)).toEqual(expect.arrayContaining(['/api/v1/verify', '/healthz', '/metrics', '/openapi.yaml']));
    });

    it('serves a Postman collection made from the description: the verify request sends X-API-Key as API-key auth, with no key in it', async () => {
      const key = await newKey('postman-acct');
      await verify('john@acme-mail.com', key);
      const res = await get('/postman.json');
      expect(res.status).toBe(200);
      const text = await res.text();
      const collection = JSON.parse(text) as {
        info: { name: string; schema: string };
        auth: { type: string; apikey: { key: string; value: string }[] };
        variable: { key: string; value: string }[];
        item: { name: string; item: { request: { method: string; url: { path: string[]; query: { key: string }[] }; auth: { type: string } | null } }[] }[];
      };
      expect(collection.info).toMatchObject({ name: 'verify-hub engine API', schema: expect.stringContaining('v2.1.0') });
      expect(collection.auth.type).toBe('apikey');
      expect(Object.fromEntries(collection.auth.apikey.map((p) => [p.key, p.value]))).toEqual({ key: 'X-API-Key', value: '{{apiKey}}', in: 'header' });
      expect(collection.variable).toContainEqual(expect.objectContaining({ key: 'apiKey', value: '' }));
      const requests = collection.item.flatMap((folder) => folder.item.map((i) => i.request));
      const verifyRequest = requests.find((r) => r.url.path.join('/') === 'api/v1/verify')!;
      expect(verifyRequest).toMatchObject({ method: 'GET', url: { query: [expect.objectContaining({ key: 'email' })] } });
      expect(verifyRequest.auth?.type ?? 'inherit').not.toBe('noauth'); // inherits the collection's API-key auth
      expect(requests.find((r) => r.url.path.join('/') === 'healthz')!.auth).toEqual({ type: 'noauth' });
      expect(text).not.toContain(key);
      expect(text).not.toMatch(/vh_[A-Za-z0-9_-]{43}/);
      // cached: the same collection again
      expect(await (await get('/postman.json')).text()).toBe(text);
    });

    it('/healthz reports Redis and DNS', async () => {
      const res = await get('/healthz');
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok', redis: 'ok', dns: 'ok' });
    });

    it('/metrics exposes throughput, latency, errors and in-flight in Prometheus format', async () => {
      const res = await get('/metrics');
      const text = await res.text();
      expect(res.headers.get('content-type')).toMatch(/text\/plain/);
      expect(text).toMatch(/engine_verifications_total\{risk="safe"\} [1-9]/);
      expect(text).toMatch(/engine_verification_duration_seconds_bucket\{le="1"\} [1-9]/);
      expect(text).toMatch(/engine_http_requests_total\{route="\/api\/v1\/verify",status="429"\} [1-9]/);
      expect(text).toMatch(/engine_http_requests_total\{route="\/api\/v1\/verify",status="401"\} [1-9]/);
      expect(text).toContain('engine_verifications_in_flight 0');
      expect(text).toContain('engine_errors_total 0');
    });

    it('never puts the key in a URL or the answer', async () => {
      const key = await newKey('leak-acct');
      const res = await verify('john@acme-mail.com', key);
      expect(JSON.stringify(Object.fromEntries(res.headers))).not.toContain(key);
      expect(await res.text()).not.toContain(key);
    });
  });

  it('validated answers of every described status of the verify operation on the way (runs last)', () => {
    const statuses = new Set([...proxy.answers.filter((a) => a.path === '/api/v1/verify').map((a) => a.status), ...validatedElsewhere]);
    expect([...statuses].sort()).toEqual([200, 400, 401, 409, 422, 429]);
    expect(proxy.invalid()).toEqual([]);
  });
});
