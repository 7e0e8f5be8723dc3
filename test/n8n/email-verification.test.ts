import { NodeApiError, NodeOperationError, type INodeExecutionData } from 'n8n-workflow';
import { HOSTED_ENGINE_URL } from '@verify-hub/core';
import { EmailVerification, executeVerify, outputsFor, VerifyHubApi, type Clock } from 'n8n-nodes-verify-hub';
import { FakeEngine } from '../fakes/engine';
import { asN8nRecordsIt, executeFunctions, itemsFor, withErrorOutput, type NodeSetup } from './n8n-harness';

const engine = new FakeEngine();
let credentials: { apiKey: string; baseUrl: string };

beforeAll(async () => {
  await engine.start();
  credentials = { apiKey: engine.apiKey, baseUrl: engine.url };
});

afterAll(() => engine.stop());

async function run(setup: Omit<NodeSetup, 'credentials'> & { credentials?: NodeSetup['credentials'] }): Promise<INodeExecutionData[][]> {
  const ctx = executeFunctions({ credentials, ...setup });
  return new EmailVerification().execute.call(ctx);
}

function evalOutputs(params: Record<string, unknown>): unknown[] {
  const expr = String(new EmailVerification().description.outputs);
  expect(expr.startsWith('={{') && expr.endsWith('}}')).toBe(true);
  return new Function('$parameter', `return ${expr.slice(3, -2)}`)(params) as unknown[];
}

describe('Email Verification node: description and credentials', () => {
  test('is usable as an AI tool, with one output, or four named ones when routing by risk', () => {
    const d = new EmailVerification().description;
    expect(d.usableAsTool).toBe(true);
    expect(d.description).toMatch(/safe, risky, invalid or unknown/);
    expect(d.credentials).toEqual([{ name: 'verifyHubApi', required: true }]);
    expect(evalOutputs({ routeByRisk: false })).toHaveLength(1);
    expect(evalOutputs({ routeByRisk: true })).toEqual(outputsFor({ routeByRisk: true }));
    expect((evalOutputs({ routeByRisk: true }) as { displayName: string }[]).map((o) => o.displayName)).toEqual(['Safe', 'Risky', 'Invalid', 'Unknown']);
    const options = d.properties.find((p) => p.name === 'options')!.options!.map((o) => o.name);
    expect(options.sort()).toEqual(['concurrency', 'maxRateLimitWait', 'resultField', 'skipWithoutEmail']);
  });

  test('credentials: password key, hosted engine by default, X-API-Key header, and a test request that works', async () => {
    const c = new VerifyHubApi();
    expect(c.properties.find((p) => p.name === 'apiKey')).toMatchObject({ type: 'string', typeOptions: { password: true }, required: true });
    expect(c.properties.find((p) => p.name === 'baseUrl')!.default).toBe(HOSTED_ENGINE_URL);
    expect(c.authenticate).toEqual({ type: 'generic', properties: { headers: { 'X-API-Key': '={{$credentials.apiKey}}' } } });
    // Resolve the test request as n8n would, against the fake engine (base URL with a trailing slash).
    const baseExpr = String(c.test.request.baseURL);
    const resolveBase = new Function('$credentials', `return ${baseExpr.slice(3, -2)}`) as (creds: unknown) => string;
    const testUrl = (key: string) => {
      const url = new URL(resolveBase({ baseUrl: `${engine.url}/`, apiKey: key }) + c.test.request.url);
      for (const [k, v] of Object.entries(c.test.request.qs ?? {})) url.searchParams.set(k, String(v));
      return fetch(url, { headers: { 'X-API-Key': key } });
    };
    expect((await testUrl(engine.apiKey)).status).toBe(200);
    expect((await testUrl('wrong')).status).toBe(401);
    expect(c.test.rules).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'responseCode', properties: expect.objectContaining({ value: 401 }) })]));
  });
});

describe('Email Verification node: Verify', () => {
  test('merges the canonical result into each item, pairs every output with its input, keeps the key out of URLs', async () => {
    const urls: string[] = [];
    const out = await run({ items: itemsFor('ann@merge.test', 'invalid.bob@merge.test'), onRequest: (u) => urls.push(u) });
    expect(out).toHaveLength(1);
    expect(out[0]).toHaveLength(2);
    expect(out[0]![0]).toEqual({
      json: expect.objectContaining({ id: 1, email: 'ann@merge.test', normalized: 'ann@merge.test', risk: 'safe', score: 92, reason: 'deliverable', billable: true, checks: expect.any(Object) }),
      pairedItem: { item: 0 },
    });
    // The fake answers field set B exactly as published: no reason code, so core's default for invalid.
    expect(out[0]![1]).toMatchObject({ json: { id: 2, risk: 'invalid', reason: 'mailbox_not_found', checks: { smtp: false, smtpCheck: 'undeliverable' } }, pairedItem: { item: 1 } });
    expect(engine.requests.filter((r) => r.email?.endsWith('@merge.test')).every((r) => r.keyMatched)).toBe(true);
    expect(urls.every((u) => !u.includes(engine.apiKey))).toBe(true);
  });

  test('reads the published shape: flags from field set B, authentication as strings, and an explanation per item', async () => {
    const out = await run({ items: itemsFor('disposable.x@shape.test', 'fine@shape.test') });
    expect(out[0]![0]!.json).toMatchObject({
      risk: 'risky',
      checks: { disposable: true, roleAccount: false, smtp: true, smtpCheck: 'deliverable', spamTrapRisk: 'low' },
      deliverability: { authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listedCount: 0, totalChecks: 10 } },
    });
    expect(out[0]![1]!.json).toMatchObject({ risk: 'safe', explanation: 'Safe to send: the mail server confirmed that the mailbox exists and accepts mail (score 92/100).' });
  });

  test('says "not checked" where no SMTP conversation happened (smtp_check "not_checked", or field set A with smtp_valid null)', async () => {
    const b = await run({ items: itemsFor('notchecked.b@smtp.test') });
    expect(b[0]![0]!.json).toMatchObject({ checks: { smtp: null, smtpCheck: 'not_checked' } });
    expect(b[0]![0]!.json.explanation).toMatch(/Mailbox not checked: no SMTP conversation/);
    expect(b[0]![0]!.json.explanation).not.toMatch(/refused|accepted the mailbox/);
    engine.script('a-only@smtp.test', { kind: 'result', risk: 'safe', fieldSet: 'A', flags: { smtpCheck: null } });
    const a = await run({ items: itemsFor('a-only@smtp.test') });
    expect(a[0]![0]!.json).toMatchObject({ risk: 'safe', checks: { smtp: null, smtpCheck: null, mx: true, disposable: false } });
    expect(a[0]![0]!.json.explanation).toBe('Safe to send: the domain accepts mail (score 92/100). Mailbox not checked: no SMTP conversation with the mail server took place.');
  });

  test('Replace Item outputs the result alone; "Put Result in Field" nests it', async () => {
    const replaced = await run({ items: itemsFor('carl@replace.test'), params: { outputMode: 'replace' } });
    expect(replaced[0]![0]!.json).not.toHaveProperty('id');
    expect(replaced[0]![0]!.json).toMatchObject({ email: 'carl@replace.test', risk: 'safe' });
    const nested = await run({ items: itemsFor('dora@replace.test'), params: { options: { resultField: 'verification' } } });
    expect(nested[0]![0]).toEqual({ json: { id: 1, email: 'dora@replace.test', verification: expect.objectContaining({ risk: 'safe', score: 92 }) }, pairedItem: { item: 0 } });
  });

  test('Route by Risk sends each item to its risk output, in input order, paired', async () => {
    const items = itemsFor('risky.a@route.test', 'b@route.test', 'unknown.c@route.test', 'invalid.d@route.test', 'e@route.test');
    const out = await run({ items, params: { routeByRisk: true } });
    expect(out).toHaveLength(4);
    const [safe, risky, invalid, unknown] = out.map((o) => o.map((i) => [i.json.email, i.pairedItem]));
    expect(safe).toEqual([['b@route.test', { item: 1 }], ['e@route.test', { item: 4 }]]);
    expect(risky).toEqual([['risky.a@route.test', { item: 0 }]]);
    expect(invalid).toEqual([['invalid.d@route.test', { item: 3 }]]);
    expect(unknown).toEqual([['unknown.c@route.test', { item: 2 }]]);
    expect(out[3]![0]!.json).toMatchObject({ risk: 'unknown', billable: false });
  });

  test('an address repeated across items is verified once, and every item gets its result', async () => {
    const out = await run({ items: itemsFor('dup@once.test', 'other@once.test', ' dup@ONCE.test ') });
    expect(out[0]!.map((i) => i.json.risk)).toEqual(['safe', 'safe', 'safe']);
    expect(out[0]![2]).toMatchObject({ json: { email: 'dup@ONCE.test', normalized: 'dup@once.test' }, pairedItem: { item: 2 } });
    expect(engine.callsFor('dup@once.test')).toBe(1);
  });

  test('Concurrency bounds the requests in flight', async () => {
    const slow = new FakeEngine({ latencyMs: 120 });
    await slow.start();
    let active = 0;
    let peak = 0;
    const ctx = executeFunctions({ items: itemsFor(...Array.from({ length: 9 }, (_, i) => `p${i}@conc.test`)), credentials: { apiKey: slow.apiKey, baseUrl: slow.url }, params: { options: { concurrency: 3 } } });
    const http = ctx.helpers.httpRequestWithAuthentication.getMockImplementation()!;
    ctx.helpers.httpRequestWithAuthentication.mockImplementation((async (...args: Parameters<typeof http>) => {
      peak = Math.max(peak, ++active);
      try {
        return await http(...args);
      } finally {
        active--;
      }
    }) as never);
    try {
      const out = await new EmailVerification().execute.call(ctx);
      expect(out[0]).toHaveLength(9);
      expect(peak).toBe(3);
    } finally {
      await slow.stop();
    }
  });

  test('items without an email: skipped unchanged with the option, else a clear error before any engine call', async () => {
    const items = itemsFor('f@skip.test', undefined, '  ');
    const skipped = await run({ items, params: { options: { skipWithoutEmail: true }, routeByRisk: true } });
    expect(skipped[0]!.map((i) => i.json.email)).toEqual(['f@skip.test']);
    expect(skipped[3]).toEqual([
      { json: { id: 2 }, pairedItem: { item: 1 } },
      { json: { id: 3, email: '  ' }, pairedItem: { item: 2 } },
    ]);

    const before = engine.requests.length;
    const failing = run({ items: itemsFor('g@skip.test', undefined) });
    await expect(failing).rejects.toThrow(NodeOperationError);
    await expect(failing).rejects.toThrow('Item 1 has no email');
    expect(engine.requests.length).toBe(before);
  });

  test('continueOnFail: the failing item carries the error on the item (for n8n) and in its json (for later nodes), the others are verified', async () => {
    const out = await run({ items: itemsFor('h@cof.test', undefined, 'invalid.i@cof.test'), continueOnFail: true, params: { email: (item) => (item.json.id === 2 ? { not: 'an email' } : item.json.email) } });
    expect(out[0]).toHaveLength(3);
    expect(out[0]![0]).toMatchObject({ json: { risk: 'safe' }, pairedItem: { item: 0 } });
    expect(out[0]![0]).not.toHaveProperty('error');
    const failed = out[0]![1]!;
    expect(failed).toMatchObject({ json: { id: 2, error: 'Email must be text, got an object', errorDescription: expect.stringContaining('{{ $json.email }}') }, pairedItem: { item: 1 } });
    expect(failed.error).toBeInstanceOf(NodeOperationError);
    expect(failed.error).toMatchObject({ message: 'Email must be text, got an object', context: { itemIndex: 1 } });
    expect(out[0]![2]).toMatchObject({ json: { risk: 'invalid' }, pairedItem: { item: 2 } });
    // What n8n records of it ("Continue"): only the message; pairedItem leads back to the row.
    expect(asN8nRecordsIt(out)[0]![1]).toMatchObject({ json: { error: 'Email must be text, got an object' }, pairedItem: { item: 1 } });
    expect(Object.keys(asN8nRecordsIt(out)[0]![1]!.json)).toEqual(['error']);
  });

  test('a number and a boolean are both refused, naming the Email field, before any address is verified', async () => {
    const before = engine.requests.length;
    for (const [value, message] of [
      [12345, 'Email must be text, got a number (12345)'],
      [true, 'Email must be text, got true (a boolean)'],
      [false, 'Email must be text, got false (a boolean)'],
      [['a@list.test'], 'Email must be text, got a list'],
    ] as const) {
      const failing = run({ items: itemsFor('ok@nontext.test', 'x'), params: { email: (item) => (item.json.id === 2 ? value : item.json.email) } });
      await expect(failing).rejects.toThrow(NodeOperationError);
      await expect(failing).rejects.toThrow(message);
    }
    expect(engine.requests.length).toBe(before);
    // With continueOnFail both fail alike, and the rest is verified.
    const out = await run({ items: itemsFor('ok@nontext.test', 'x', 'y'), continueOnFail: true, params: { email: (item) => ({ 1: 'ok@nontext.test', 2: 12345, 3: true })[item.json.id as number] } });
    expect(out[0]!.map((i) => i.json.error ?? i.json.risk)).toEqual(['safe', 'Email must be text, got a number (12345)', 'Email must be text, got true (a boolean)']);
  });

  describe('"Continue (using error output)": 50 items, 7 bad', () => {
    const BAD: Record<number, unknown> = { 3: '', 9: 12345, 17: true, 22: { not: 'an email' }, 30: ['a@list.test'], 41: undefined, 48: false };
    const kinds = ['', 'risky.', 'invalid.', 'unknown.'];
    const items = Array.from({ length: 50 }, (_, i) => ({ json: { id: i, email: i in BAD ? BAD[i] : `${kinds[i % 4]}p${i}@errout.test` } })) as INodeExecutionData[];
    const bad = Object.keys(BAD).map(Number);

    function expectErrorOutput(errors: INodeExecutionData[]) {
      expect(errors.map((i) => i.pairedItem)).toEqual(bad.map((item) => ({ item })));
      for (const e of errors) {
        // n8n keeps only the message in json; pairedItem leads back to the row.
        const index = (e.pairedItem as { item: number }).item;
        expect(items[index]!.json.id).toBe(index);
        expect(e.json).toEqual({ error: expect.stringMatching(index === 3 || index === 41 ? /^Item \d+ has no email$/ : /^Email must be text, got /) });
      }
    }

    test('bad items arrive on the error output, good ones on the main output, pairedItem intact', async () => {
      const out = withErrorOutput(await run({ items, continueOnFail: true, params: { options: { skipWithoutEmail: false } } }));
      expect(out).toHaveLength(2);
      const [main, errors] = out as [INodeExecutionData[], INodeExecutionData[]];
      expect(main).toHaveLength(43);
      expect(main.every((i) => typeof i.json.risk === 'string' && i.json.error === undefined)).toBe(true);
      expect(main.map((i) => (i.pairedItem as { item: number }).item)).toEqual(items.map((_, i) => i).filter((i) => !bad.includes(i)));
      expectErrorOutput(errors);
    });

    test('with Route by Risk: the four risk outputs hold only verified items of their risk; errors only on the error output', async () => {
      const out = withErrorOutput(await run({ items, continueOnFail: true, params: { routeByRisk: true } }));
      expect(out).toHaveLength(5);
      ['safe', 'risky', 'invalid', 'unknown'].forEach((risk, o) => {
        expect(out[o]!.length).toBeGreaterThan(0);
        expect(out[o]!.every((i) => i.json.risk === risk && i.json.error === undefined)).toBe(true);
      });
      expect(out.slice(0, 4).flat()).toHaveLength(43);
      expectErrorOutput(out[4]!);
    });

    test('engine stops (a rejected key) too: every unverified item goes to the error output with a NodeApiError for its index', async () => {
      const good = items.filter((_, i) => !bad.includes(i)).slice(0, 3);
      const raw = await run({ items: good, credentials: { apiKey: 'revoked-key', baseUrl: engine.url }, continueOnFail: true, params: { routeByRisk: true } });
      expect(raw[3]!.map((i) => [i.error?.constructor, i.error?.context.itemIndex])).toEqual([0, 1, 2].map((n) => [NodeApiError, n]));
      const out = withErrorOutput(raw);
      expect(out.slice(0, 4).flat()).toEqual([]);
      expect(out[4]!.map((i) => [i.json, i.pairedItem])).toEqual([0, 1, 2].map((n) => [{ error: 'Verify Hub rejected the API key' }, { item: n }]));
    });
  });

  test('engine 429: waits until X-RateLimit-Reset, retries, and succeeds', async () => {
    engine.script('j@rate.test', { kind: 'rate-limited', resetInMs: 700, form: 'epoch-ms' }, { kind: 'result', risk: 'risky' });
    const started = Date.now();
    const out = await run({ items: itemsFor('j@rate.test', 'k@rate.test'), params: { options: { concurrency: 1 } } });
    expect(out[0]!.map((i) => i.json.risk)).toEqual(['risky', 'safe']);
    expect(engine.callsFor('j@rate.test')).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  test('engine 429 past the total allowed wait: NodeApiError, or the error on the unverified items with continueOnFail', async () => {
    const waits: number[] = [];
    const clock: Clock = { now: () => Date.now() + waits.reduce((a, b) => a + b, 0), sleep: async (ms) => void waits.push(ms) };
    // The fake clock moves on by each wait, while the engine sets resets from real time: the second
    // reset is 80 s after the real start, i.e. 40 s after the fake clock's first wait (40 + 40 > 60).
    const limited = { kind: 'rate-limited', resetInMs: 40_000, form: 'epoch-ms' } as const;
    engine.script('l@budget.test', limited, { ...limited, resetInMs: 80_000 }, { kind: 'result' });
    const ctx = executeFunctions({ items: itemsFor('l@budget.test'), credentials, params: { options: { maxRateLimitWait: 60 } } });
    const error = await executeVerify(ctx, { clock }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeApiError);
    expect(error).toMatchObject({ httpCode: '429', message: 'Verify Hub rate limit: waited as long as allowed' });
    expect(waits).toHaveLength(1);
    expect(engine.callsFor('l@budget.test')).toBe(2);

    engine.script('m@budget.test', limited);
    const cof = executeFunctions({ items: itemsFor('m@budget.test'), credentials, continueOnFail: true, params: { options: { maxRateLimitWait: 10 }, routeByRisk: true } });
    const out = await executeVerify(cof, { clock });
    expect(out[3]).toEqual([{ json: expect.objectContaining({ id: 1, email: 'm@budget.test', error: 'Verify Hub rate limit: waited as long as allowed' }), error: expect.any(NodeApiError), pairedItem: { item: 0 } }]);
  });

  test('quota exhausted: NodeApiError with a clear message and the reset time; no further addresses are sent', async () => {
    engine.script('o@quota.test', { kind: 'quota', resetInMs: 3 * 24 * 3600 * 1000 });
    const run1 = run({ items: itemsFor('n@quota.test', 'o@quota.test', 'p@quota.test'), params: { options: { concurrency: 1 } } });
    const error = (await run1.catch((e: unknown) => e)) as NodeApiError;
    expect(error).toBeInstanceOf(NodeApiError);
    expect(error.message).toBe('Verify Hub quota exhausted');
    expect(error.httpCode).toBe('429');
    expect(error.description).toMatch(/quota exhausted until \d{4}-\d\d-\d\dT.*buy a credit pack or upgrade/);
    expect(engine.callsFor('p@quota.test')).toBe(0);
  });

  test('a rejected key: NodeApiError 401; with continueOnFail every unverified item carries the error', async () => {
    const bad = { apiKey: 'revoked-key', baseUrl: engine.url };
    const error = (await run({ items: itemsFor('q@auth.test'), credentials: bad }).catch((e: unknown) => e)) as NodeApiError;
    expect(error).toBeInstanceOf(NodeApiError);
    expect(error.message).toBe('Verify Hub rejected the API key');
    expect(error.httpCode).toBe('401');
    expect(JSON.stringify(error)).not.toContain('revoked-key');

    const out = await run({ items: itemsFor('r@auth.test', 's@auth.test'), credentials: bad, continueOnFail: true });
    expect(out[0]!.map((i) => [i.json.error, i.pairedItem])).toEqual([
      ['Verify Hub rejected the API key', { item: 0 }],
      ['Verify Hub rejected the API key', { item: 1 }],
    ]);
  });

  test('a Base URL that is not a URL: a clear NodeOperationError, no request', async () => {
    const calls: string[] = [];
    const failing = run({ items: itemsFor('u@url.test'), credentials: { apiKey: engine.apiKey, baseUrl: 'engine.example' }, onRequest: (u) => calls.push(u) });
    await expect(failing).rejects.toThrow(NodeOperationError);
    await expect(failing).rejects.toThrow('Base URL in the "Verify Hub API" credentials is not a valid URL');
    expect(calls).toEqual([]);
  });

  test('engine trouble (5xx) is retried, then the address is unknown and not billed, never lost', async () => {
    engine.script('t@down.test', { kind: 'status', status: 503 });
    const out = await run({ items: itemsFor('t@down.test'), params: { routeByRisk: true } });
    expect(out[3]).toEqual([{ json: expect.objectContaining({ email: 't@down.test', risk: 'unknown', reason: 'engine_error', billable: false }), pairedItem: { item: 0 } }]);
    expect(engine.callsFor('t@down.test')).toBe(3);
  });
});
