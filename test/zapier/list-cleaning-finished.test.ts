import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createLogger, HOOK_SIGNATURE_TOLERANCE_SECONDS, signHookPayload } from '@verify-hub/core';
import { OutboundGuard, createHubApp, type HubApp } from '@verify-hub/webhooks-in';
import App from 'verify-hub-zapier';
import { KEY, appError, appTester, rejection } from './helpers';
import { StubRunService } from './stub-run-service';

const trigger = App.triggers.list_cleaning_finished.operation;
const ADMIN_TOKEN = 'zapier-test-admin-token-0123456789';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Stands in for Zapier's hook URL: records each delivery the hub makes. */
function startReceiver(): Promise<{ server: Server; url: string; next(): Promise<Delivery> }> {
  const waiting: ((d: Delivery) => void)[] = [];
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delivery = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const waiter = waiting.shift();
      if (waiter) waiter(delivery);
      else received.push(delivery);
      res.writeHead(200).end('{"status":"success"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/standard/123/abc`,
        next: () => (received.length ? Promise.resolve(received.shift()!) : new Promise((r) => waiting.push(r))),
      }),
    ),
  );
}

/** The delivery as Zapier hands it to `perform`: raw request (CGI-style header names) and parsed body. */
function asBundle(d: Delivery) {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(d.headers)) {
    headers[`Http-${name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase())}`] = String(value);
  }
  return { rawRequest: { method: 'POST' as const, headers, content: d.body }, cleanedRequest: JSON.parse(d.body) as unknown };
}

describe('Zapier app: List Cleaning Finished (REST hook against the hub service)', () => {
  const runs = new StubRunService();
  const prefix = `test:zapier:${randomUUID()}:`;
  const queueName = `zapier-hook-test-${randomUUID()}`;
  const uploadDir = mkdtempSync(join(tmpdir(), 'vh-zapier-'));
  let redis: Redis;
  let hub: HubApp;
  let hubServer: Server;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let authData: Record<string, string>;

  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    hub = createHubApp({
      runs,
      redis,
      adminToken: ADMIN_TOKEN,
      uploadDir,
      keyPrefix: prefix,
      logger: createLogger({ level: 'silent' }),
      delivery: { attempts: 2, backoffMs: 50, timeoutMs: 5000, queueName },
      // The REST-hook receiver listens on loopback: allowed the way an operator would (HUB_OUTBOUND_ALLOW).
      outbound: new OutboundGuard({ allow: '127.0.0.1' }),
    });
    hubServer = await new Promise<Server>((resolve) => {
      const s = hub.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    receiver = await startReceiver();
    authData = { apiKey: KEY, hubUrl: `http://127.0.0.1:${(hubServer.address() as AddressInfo).port}`, hubToken: ADMIN_TOKEN };
  });

  afterAll(async () => {
    await hub.close();
    hubServer.closeAllConnections();
    await new Promise((r) => hubServer.close(r));
    receiver.server.closeAllConnections();
    await new Promise((r) => receiver.server.close(r));
    const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`bull:${queueName}:*`))];
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('subscribes, receives a signed completion from the hub, triggers with the run, and unsubscribes', async () => {
    const subscribeData = await appTester(trigger.performSubscribe, { authData, targetUrl: receiver.url, inputData: { outcomes: ['completed'] } });
    expect(subscribeData.id).toMatch(/^[a-f0-9-]{36}$/);
    expect(await hub.hooks.list()).toEqual([expect.objectContaining({ id: subscribeData.id, url: receiver.url, events: ['run.completed'] })]);

    runs.add({ id: 'run-1' });
    runs.finish('run-1', 'completed', { pulled: 10, verified: 9, unknown: 1, written: 9, credits: 9 });
    const delivery = await receiver.next();
    const fired = await appTester(trigger.perform, { authData, subscribeData, inputData: { outcomes: ['completed'] }, ...asBundle(delivery) });
    expect(fired).toEqual([expect.objectContaining({ id: 'run-1', status: 'completed', counters: expect.objectContaining({ verified: 9, unknown: 1, credits: 9 }) })]);

    // a tampered delivery is refused, not triggered
    const tampered = asBundle({ ...delivery, body: delivery.body.replace('"verified":9', '"verified":900') });
    const refused = appError(await rejection(appTester(trigger.perform, { authData, subscribeData, inputData: {}, ...tampered })));
    expect(refused).toMatchObject({ code: 'BAD_SIGNATURE' });

    // a genuine delivery replayed just outside the hub's one replay window (core's) is refused too
    const signedAt = (secondsAgo: number) => ({ 'Http-X-Verifyhub-Signature': signHookPayload(subscribeData.secret!, delivery.body, Math.floor(Date.now() / 1000) - secondsAgo) });
    const replayWith = (headers: Record<string, string>) => appTester(trigger.perform, { authData, subscribeData, inputData: { outcomes: ['completed'] }, rawRequest: { headers, content: delivery.body }, cleanedRequest: JSON.parse(delivery.body) });
    const replayed = appError(await rejection(replayWith(signedAt(HOOK_SIGNATURE_TOLERANCE_SECONDS + 30))));
    expect(replayed).toMatchObject({ code: 'BAD_SIGNATURE' });
    // and one signed a little while ago (clock skew inside the window) is accepted
    expect(await replayWith(signedAt(HOOK_SIGNATURE_TOLERANCE_SECONDS - 30))).toEqual([expect.objectContaining({ id: 'run-1' })]);

    const gone = await appTester(trigger.performUnsubscribe, { authData, subscribeData });
    expect(gone).toEqual({ id: subscribeData.id, removed: true });
    expect(await hub.hooks.list()).toEqual([]);
    // unsubscribing again (Zapier retries) is not an error
    expect(await appTester(trigger.performUnsubscribe, { authData, subscribeData })).toEqual({ id: subscribeData.id, removed: false });
  });

  it('filters by outcome and lists recent finished runs for the editor', async () => {
    runs.add({ id: 'run-2' });
    runs.finish('run-2', 'failed');
    runs.add({ id: 'run-3' }); // still running
    const failedOnly = await appTester(trigger.performList, { authData, inputData: { outcomes: ['failed'] } });
    expect(failedOnly.map((r) => r.id)).toEqual(['run-2']);
    const all = await appTester(trigger.performList, { authData, inputData: {} });
    expect(all.map((r) => r.id).sort()).toEqual(['run-1', 'run-2']);
    // a delivery of an outcome the Zap did not ask for does not trigger it (unsigned: no secret was kept)
    const body = JSON.stringify({ id: 'd1', event: 'run.failed', run: { id: 'run-2', status: 'failed' } });
    const skipped = await appTester(trigger.perform, { authData, subscribeData: { id: 'x' }, inputData: { outcomes: ['completed'] }, rawRequest: { content: body, headers: {} }, cleanedRequest: JSON.parse(body) });
    expect(skipped).toEqual([]);
  });

  it('a wrong admin token or a connection without the hub fields gives a clear error', async () => {
    const wrong = appError(await rejection(appTester(trigger.performSubscribe, { authData: { ...authData, hubToken: 'nope' }, targetUrl: receiver.url, inputData: {} })));
    expect(wrong).toMatchObject({ code: 'HUB_UNAUTHORIZED', status: 401 });
    expect(wrong.message).toMatch(/Hub Admin Token/);
    expect(wrong.message).not.toContain('nope');
    const missing = appError(await rejection(appTester(trigger.performSubscribe, { authData: { apiKey: KEY }, targetUrl: receiver.url, inputData: {} })));
    expect(missing).toMatchObject({ code: 'HUB_NOT_CONFIGURED' });
    expect(await hub.hooks.list()).toEqual([]);
  });
});
