import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Verifier } from '@verify-hub/core';
import { createMcpHttpHandler, PortableResultSchema, startMcpHttpServer, type StandaloneMcpServer } from '@verify-hub/mcp';
import { FakeEngine } from '../fakes/engine';
import { callTool, connectHttp, textOf } from './helpers';

describe('MCP server over Streamable HTTP (SDK client against the fake engine)', () => {
  const engine = new FakeEngine();
  let mcp: StandaloneMcpServer;
  let client: Client;
  const clients: Client[] = [];

  const connect = async (headers: Record<string, string>) => {
    const c = await connectHttp(mcp.url, headers);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    await engine.start();
    mcp = await startMcpHttpServer({ port: 0, engineUrl: engine.url, maxRateLimitWaitMs: 2_000 });
    client = await connect({ 'X-API-Key': engine.apiKey });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await mcp.close();
    await engine.stop();
  });

  test('lists the three tools with descriptions and JSON schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['explain_result', 'verify_email', 'verify_emails']);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const batch = tools.find((t) => t.name === 'verify_emails')!;
    expect(batch.inputSchema.required).toEqual(['emails']);
    expect(batch.inputSchema.properties!.emails).toMatchObject({ type: 'array', minItems: 1, maxItems: 100 });
    const single = tools.find((t) => t.name === 'verify_email')!;
    expect(single.inputSchema.properties!.email).toMatchObject({ type: 'string', description: expect.stringContaining('email address') });
    expect(single.outputSchema!.required).toEqual(expect.arrayContaining(['email', 'risk', 'score', 'reason', 'checks', 'billable']));
    expect(single.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
  });

  test('verify_email returns the canonical result, with the key only in the header', async () => {
    const result = await callTool(client, 'verify_email', { email: '  Jane.Doe@Example.COM ' });
    expect(result.isError).toBeFalsy();
    const v = PortableResultSchema.parse(result.structuredContent);
    expect(v).toMatchObject({ email: 'Jane.Doe@Example.COM', normalized: 'Jane.Doe@example.com', risk: 'safe', score: 92, reason: 'deliverable', billable: true });
    expect(textOf(result)).toContain('Jane.Doe@Example.COM: safe (score 92, reason deliverable)');
    const seen = engine.requests.filter((r) => r.email === 'Jane.Doe@example.com');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.keyMatched).toBe(true);
    expect(seen[0]!.url).not.toContain(engine.apiKey);
  });

  test('verify_email on an address with no @ answers invalid/syntax without an engine call', async () => {
    const before = engine.requests.length;
    const result = await callTool(client, 'verify_email', { email: 'not-an-address' });
    expect(result.structuredContent).toMatchObject({ risk: 'invalid', reason: 'syntax', billable: false });
    expect(engine.requests.length).toBe(before);
  });

  test('verify_emails keeps input order, verifies duplicates once and sums up', async () => {
    const emails = ['ok.one@batch.test', 'invalid.two@batch.test', 'risky.three@batch.test', 'unknown.four@batch.test', 'ok.one@BATCH.test'];
    const result = await callTool(client, 'verify_emails', { emails });
    expect(result.isError).toBeFalsy();
    const { results, summary } = result.structuredContent as { results: { email: string; risk: string }[]; summary: Record<string, number> };
    expect(results.map((r) => r.risk)).toEqual(['safe', 'invalid', 'risky', 'unknown', 'safe']);
    expect(results.map((r) => r.email)).toEqual(['ok.one@batch.test', 'invalid.two@batch.test', 'risky.three@batch.test', 'unknown.four@batch.test', 'ok.one@BATCH.test']);
    expect(summary).toEqual({ total: 5, safe: 2, risky: 1, invalid: 1, unknown: 1, duplicates: 1, credits: 3 });
    expect(engine.callsFor('ok.one@batch.test')).toBe(1);
    expect(textOf(result)).toContain('5 addresses: 2 safe, 1 risky, 1 invalid, 1 unknown; 3 credits used.');
  });

  test('verify_emails runs several addresses at once, never more than the bound', async () => {
    const slow = new FakeEngine({ latencyMs: 150 });
    await slow.start();
    let active = 0;
    let peak = 0;
    const { EngineClient } = await import('@verify-hub/core');
    const counting = (apiKey: string): Verifier => {
      const inner = new EngineClient({ baseUrl: slow.url, apiKey });
      return {
        verify: async (email, opts) => {
          peak = Math.max(peak, ++active);
          try {
            return await inner.verify(email, opts);
          } finally {
            active--;
          }
        },
      };
    };
    const own = await startMcpHttpServer({ verifierFor: counting, concurrency: 3 });
    const c = await connectHttp(own.url, { 'X-API-Key': slow.apiKey });
    try {
      const emails = Array.from({ length: 12 }, (_, i) => `person${i}@wide.test`);
      const result = await callTool(c, 'verify_emails', { emails });
      expect((result.structuredContent as { summary: { safe: number } }).summary.safe).toBe(12);
      expect(peak).toBe(3);
    } finally {
      await c.close();
      await own.close();
      await slow.stop();
    }
  });

  test('explain_result turns a result into a recommendation', async () => {
    const verified = await callTool(client, 'verify_email', { email: 'invalid.someone@explain.test' });
    const result = await callTool(client, 'explain_result', { result: verified.structuredContent });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ email: 'invalid.someone@explain.test', verdict: 'do_not_send' });
    expect(textOf(result)).toMatch(/invalid.*do not send/i);
    expect(textOf(result)).toContain('the mail server says this mailbox does not exist');
    expect(textOf(result)).toContain('The mail server refused the mailbox.');
    expect(textOf(result)).toContain('The mail server refused the mailbox.');
  });

  test('explain_result on a result with no SMTP conversation (smtp_check "not_checked") says the mailbox was not checked', async () => {
    const verified = await callTool(client, 'verify_email', { email: 'notchecked.someone@explain.test' });
    expect(verified.structuredContent).toMatchObject({ checks: { smtpCheck: 'not_checked' } });
    // Not checked is absent in the portable result, never null and never false.
    expect((verified.structuredContent as { checks: object }).checks).not.toHaveProperty('smtp');
    const result = await callTool(client, 'explain_result', { result: verified.structuredContent });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('not checked over SMTP');
    expect(textOf(result)).not.toMatch(/refused/);
  });

  test('a key the engine rejects comes back as a readable UNAUTHORIZED tool error', async () => {
    const wrong = await connect({ 'X-API-Key': 'not-the-key' });
    const result = await callTool(wrong, 'verify_email', { email: 'someone@auth.test' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^UNAUTHORIZED: the engine rejected the API key/);
    expect(textOf(result)).not.toContain('not-the-key');
    const batch = await callTool(wrong, 'verify_emails', { emails: ['a@auth.test', 'b@auth.test'] });
    expect(batch.isError).toBe(true);
    expect(textOf(batch)).toContain('UNAUTHORIZED');
  });

  test('Authorization: Bearer <key> works like X-API-Key', async () => {
    const bearer = await connect({ Authorization: `Bearer ${engine.apiKey}` });
    const result = await callTool(bearer, 'verify_email', { email: 'bearer@auth.test' });
    expect(result.structuredContent).toMatchObject({ risk: 'safe' });
  });

  test('no key at all: HTTP 401 saying where to put the key, no Bearer challenge (no OAuth offered here), and the SDK client cannot connect', async () => {
    const res = await fetch(mcp.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate') ?? '';
    expect(challenge).toBe('ApiKey realm="verify-hub", header="X-API-Key"');
    expect(challenge).not.toMatch(/bearer/i);
    const { error } = (await res.json()) as { error: { message: string } };
    expect(error.message).toMatch(/^Missing API key: .*verify-hub API key.*settings.*"X-API-Key: <your key>".*"Authorization: Bearer <your key>".*reconnect/);
    await expect(connectHttp(mcp.url, {})).rejects.toMatchObject({ code: 401, message: expect.stringContaining('Missing API key') });
  });

  test('quota exhausted: QUOTA_EXCEEDED with the reset time', async () => {
    engine.script('quota@limits.test', { kind: 'quota', resetInMs: 5 * 24 * 3600 * 1000 });
    const result = await callTool(client, 'verify_email', { email: 'quota@limits.test' });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^QUOTA_EXCEEDED: .* until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    const until = Date.parse(/until (\S+)\./.exec(text)![1]!);
    expect(until - Date.now()).toBeGreaterThan(4 * 24 * 3600 * 1000);
  });

  test('quota in the middle of a batch: a tool error that keeps the results so far', async () => {
    engine.script('b-quota@limits.test', { kind: 'quota' });
    const one = new FakeEngine();
    await one.start();
    one.script('b-quota@limits.test', { kind: 'quota' });
    const own = await startMcpHttpServer({ engineUrl: one.url, concurrency: 1 });
    const c = await connectHttp(own.url, { 'X-API-Key': one.apiKey });
    try {
      const result = await callTool(c, 'verify_emails', { emails: ['a-first@limits.test', 'b-quota@limits.test', 'c-later@limits.test'] });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('QUOTA_EXCEEDED');
      expect(textOf(result)).toContain('1 of 3 addresses have a result');
      const partial = JSON.parse((result.content[1] as { text: string }).text) as { results: { email: string; risk?: string; pending?: boolean }[] };
      expect(partial.results).toEqual([
        expect.objectContaining({ email: 'a-first@limits.test', risk: 'safe' }),
        { email: 'b-quota@limits.test', pending: true },
        { email: 'c-later@limits.test', pending: true },
      ]);
      expect(one.callsFor('c-later@limits.test')).toBe(0);
    } finally {
      await c.close();
      await own.close();
      await one.stop();
    }
  });

  test('rate limit beyond the allowed wait: RATE_LIMITED with the reset time, engine called once', async () => {
    engine.script('slowdown@limits.test', { kind: 'rate-limited', resetInMs: 60_000 }, { kind: 'result', risk: 'safe' });
    const result = await callTool(client, 'verify_email', { email: 'slowdown@limits.test' });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^RATE_LIMITED: .* resets at \d{4}-\d\d-\d\dT/);
    const resetAt = Date.parse(/resets at (\S+) /.exec(text)![1]!);
    expect(resetAt - Date.now()).toBeGreaterThan(50_000);
    expect(engine.callsFor('slowdown@limits.test')).toBe(1);
  });

  test('a short rate limit is waited out and the call succeeds', async () => {
    engine.script('brief@limits.test', { kind: 'rate-limited', resetInMs: 300, form: 'epoch-ms' }, { kind: 'result', risk: 'risky' });
    const result = await callTool(client, 'verify_email', { email: 'brief@limits.test' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ risk: 'risky' });
    expect(engine.callsFor('brief@limits.test')).toBe(2);
  });

  test('bad input comes back as a tool error naming the field', async () => {
    const empty = await callTool(client, 'verify_email', { email: '   ' });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/Invalid arguments for tool verify_email/);
    expect(textOf(empty)).toMatch(/email/);

    const missing = await callTool(client, 'verify_email', {});
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/email/);

    const tooMany = await callTool(client, 'verify_emails', { emails: Array.from({ length: 101 }, (_, i) => `p${i}@many.test`) });
    expect(tooMany.isError).toBe(true);
    expect(textOf(tooMany)).toMatch(/emails/);
    expect(textOf(tooMany)).toMatch(/at most 100/);
    expect(engine.requests.some((r) => r.email?.endsWith('@many.test'))).toBe(false);

    const noRisk = await callTool(client, 'explain_result', { result: { email: 'x@y.test', score: 50 } });
    expect(noRisk.isError).toBe(true);
    expect(textOf(noRisk)).toMatch(/risk/);
  });

  test('GET, other paths, oversized and malformed bodies get plain HTTP errors', async () => {
    const headers = { 'X-API-Key': engine.apiKey, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    expect((await fetch(mcp.url, { headers })).status).toBe(405);
    expect((await fetch(mcp.url.replace('/mcp', '/other'), { headers })).status).toBe(404);
    const big = await fetch(mcp.url, { method: 'POST', headers, body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(big.status).toBe(413);
    const broken = await fetch(mcp.url, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });
});

describe('the HTTP handler mounted in an Express 5 app with an injected verifier', () => {
  let server: Server;
  const keysSeen: string[] = [];

  beforeAll(async () => {
    const verifierFor = (apiKey: string): Verifier => {
      keysSeen.push(apiKey);
      return {
        verify: async (email) => ({
          email,
          normalized: email,
          score: 80,
          risk: 'safe',
          reason: 'deliverable',
          checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: false, freeProvider: true, spamTrapRisk: 'none' },
          checkedAt: new Date().toISOString(),
          billable: true,
        }),
      };
    };
    const mcpHandler = createMcpHttpHandler({ verifierFor });
    const app = express();
    app.use(express.json());
    app.all('/mcp', (req, res) => mcpHandler(req, res, req.body));
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('serves the tools with the body Express already parsed, and hands the caller key to the factory', async () => {
    const { port } = server.address() as AddressInfo;
    const c = await connectHttp(`http://127.0.0.1:${port}/mcp`, { 'X-API-Key': 'caller-key-1' });
    try {
      const result = await callTool(c, 'verify_email', { email: 'hub@express.test' });
      expect(result.structuredContent).toMatchObject({ email: 'hub@express.test', risk: 'safe', score: 80 });
      expect(keysSeen).toContain('caller-key-1');
      expect(keysSeen.every((k) => k === 'caller-key-1')).toBe(true);
    } finally {
      await c.close();
    }
  });
});
