import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { EngineClient, toWireResponse, type Verification } from '@verify-hub/core';
import { TS_CHILD_ARGS } from '../setup/ts-child';

/** A bare engine: answers `answer(email)` and counts requests and TCP connections. */
async function bareEngine(answer: (email: string) => { status: number; body: string; headers?: Record<string, string> }, keepAliveMs = 5_000) {
  const stats = { requests: 0, connections: 0, keys: [] as string[] };
  const server: Server = createServer((req, res) => {
    stats.requests++;
    stats.keys.push(String(req.headers['x-api-key']));
    const email = new URL(req.url ?? '/', 'http://engine').searchParams.get('email') ?? '';
    const { status, body, headers } = answer(email);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  server.keepAliveTimeout = keepAliveMs;
  server.on('connection', () => stats.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, stats, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const safe = (email: string): Verification => ({
  email,
  normalized: email,
  score: 91,
  risk: 'safe',
  reason: 'deliverable',
  checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none' },
  checkedAt: '2026-11-26T10:00:00.000Z',
  billable: true,
});

describe("the engine client's default transport (Node's HTTP client)", () => {
  it('reuses keep-alive connections (200 calls, 10 at a time, open at most 10), and resends on a fresh one a request whose kept-alive socket the engine closed', () => {
    const probe = spawnSync(process.execPath, [...TS_CHILD_ARGS, join(__dirname, 'fixtures', 'keep-alive-probe.ts')], { encoding: 'utf8', timeout: 60_000 });
    if (probe.status !== 0) throw new Error(`probe exited ${probe.status}: ${probe.stderr}`);
    const counts = JSON.parse(probe.stdout) as { requests: number; connections: number; risks: string[]; dropped: number; afterDrop: { risk: string } };
    expect(counts).toMatchObject({ requests: 200, risks: ['safe'] });
    expect(counts.connections).toBeLessThanOrEqual(10);
    // With no client retry, the dropped request still ends in the engine's verdict.
    expect(counts).toMatchObject({ dropped: 1, afterDrop: { risk: 'safe' } });
  });

  it('a connection the engine closed while idle costs no retry: the next call opens a new one', async () => {
    const engine = await bareEngine((email) => ({ status: 200, body: JSON.stringify(toWireResponse(safe(email))) }), 200);
    try {
      const client = new EngineClient({ baseUrl: engine.url, apiKey: 'key-123' });
      expect(await client.verify('first@example.com')).toMatchObject({ risk: 'safe' });
      const closedBefore = engine.stats.connections;
      // Wait until the engine has closed the idle socket (its keep-alive timeout is 200 ms).
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await client.verify('second@example.com')).toMatchObject({ risk: 'safe' });
      expect(engine.stats.requests).toBe(2);
      expect(engine.stats.connections).toBe(closedBefore + 1);
    } finally {
      await engine.close();
    }
  });

  it('an answer over 1 MiB is not a result: unknown (engine_bad_response), asked once, never billed', async () => {
    const engine = await bareEngine((email) => ({ status: 200, body: JSON.stringify({ ...toWireResponse(safe(email)), padding: 'x'.repeat(2 * 1024 * 1024) }) }));
    try {
      const v = await new EngineClient({ baseUrl: engine.url, apiKey: 'key-123', retries: 3, backoffBaseMs: 1 }).verify('big@example.com');
      expect(v).toMatchObject({ risk: 'unknown', reason: 'engine_bad_response', billable: false });
      expect(engine.stats.requests).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('reads the status and headers of a refusal (429 with its reset)', async () => {
    const reset = Math.floor(Date.now() / 1000) + 30;
    const engine = await bareEngine(() => ({ status: 429, body: JSON.stringify({ error: 'slow down', code: 'rate_limited' }), headers: { 'x-ratelimit-reset': String(reset), 'x-request-id': 'req-9' } }));
    try {
      const error = await new EngineClient({ baseUrl: engine.url, apiKey: 'key-123' }).verify('a@example.com').catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'EngineRateLimitError', requestId: 'req-9', status: 429 });
      expect((error as { resetAt: number }).resetAt).toBe(reset * 1000);
    } finally {
      await engine.close();
    }
  });
});
