import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SecretBox, verifyHookSignature } from '@verify-hub/core';
import { OutboundGuard } from '@verify-hub/webhooks-in';
import { createHarness, bearer, type Harness } from './harness';
import { until } from '../setup/until';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback receiver (allowed by the hub's outbound guard) that answers with the scripted statuses in turn (then 200). */
async function receiver(statuses: number[] = []): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = statuses.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/run-finished`, received, server };
}

/** The receiver side, written out with node:crypto alone (not the hub's helper): t=<s>,v1=<hex HMAC of "t.body">. */
function independentlyValid(secret: string, header: string | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(header ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return Math.abs(Date.now() / 1000 - Number(match[1])) < 300 && timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

describe('completion webhooks', () => {
  let h: Harness;
  const servers: Server[] = [];
  beforeAll(async () => {
    h = await createHarness({
      secretBox: new SecretBox('k'.repeat(40)),
      delivery: { queueName: `test-hook-deliveries-${randomUUID()}`, attempts: 4, backoffMs: 50, timeoutMs: 2000 },
      // The receivers here listen on loopback: allowed the way an operator would (HUB_OUTBOUND_ALLOW).
      outbound: new OutboundGuard({ allow: '127.0.0.1' }),
    });
  });
  afterAll(async () => {
    const queue = h.hub.delivery!.deliveryQueue;
    await queue.obliterate({ force: true });
    await h.close();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('registers, lists and deletes hooks; the secret is shown once and sealed at rest', async () => {
    const created = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: 'https://hooks.zapier.com/hooks/standard/1/abc', label: 'zap 1' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://hooks.zapier.com/hooks/standard/1/abc', events: ['run.completed', 'run.failed', 'run.cancelled'], label: 'zap 1' });
    expect(created.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await h.redis.hget(`${h.prefix}hooks`, created.body.id);
    expect(stored).not.toContain(created.body.secret);
    const list = await request(h.hub.app).get('/api/hooks').set(bearer);
    expect(list.body.hooks).toEqual([{ id: created.body.id, url: created.body.url, events: created.body.events, label: 'zap 1', createdAt: created.body.createdAt }]);
    const deleted = await request(h.hub.app).delete(`/api/hooks/${created.body.id}`).set(bearer);
    expect(deleted.status).toBe(204);
    const again = await request(h.hub.app).delete(`/api/hooks/${created.body.id}`).set(bearer);
    expect(again.status).toBe(404);
  });

  it.each([
    [{}, 'body.url'],
    [{ url: 'ftp://example.com/x' }, 'body.url'],
    [{ url: 'not a url' }, 'body.url'],
    [{ url: 'https://example.com/x', events: ['run.started'] }, 'body.events.0'],
    [{ url: 'https://example.com/x', secret: 'short' }, 'body.secret'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const res = await request(h.hub.app).post('/api/hooks').set(bearer).send(body);
    expect(res.status).toBe(400);
    expect(res.body.field).toBe(field);
  });

  it('refuses hook registration without the token', async () => {
    const res = await request(h.hub.app).post('/api/hooks').send({ url: 'https://example.com/x' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('UNAUTHORIZED');
  });

  it('POSTs the run summary, signed, retrying with backoff until the receiver takes it', async () => {
    const target = await receiver([500, 503]);
    servers.push(target.server);
    const hook = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: target.url, events: ['run.completed'] });
    const other = await receiver();
    servers.push(other.server);
    await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: other.url, events: ['run.failed'] });

    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    h.runs.finish(run.id, 'completed', { pulled: 10, verified: 8, cached: 2, written: 9, unchanged: 1, credits: 8 });
    await until(() => target.received.length === 3);

    const deliveries = target.received;
    // Same delivery id on each attempt, so a receiver can drop repeats.
    expect(new Set(deliveries.map((d) => d.headers['x-verifyhub-delivery'])).size).toBe(1);
    const last = deliveries[2]!;
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers['x-verifyhub-event']).toBe('run.completed');
    expect(independentlyValid(hook.body.secret, last.headers['x-verifyhub-signature'] as string, last.body)).toBe(true);
    expect(independentlyValid('another-secret-entirely', last.headers['x-verifyhub-signature'] as string, last.body)).toBe(false);
    expect(independentlyValid(hook.body.secret, last.headers['x-verifyhub-signature'] as string, last.body.replace('"written":9', '"written":90'))).toBe(false);
    expect(verifyHookSignature(hook.body.secret, last.headers['x-verifyhub-signature'] as string, last.body)).toBe(true);
    const payload = JSON.parse(last.body);
    expect(payload).toMatchObject({ event: 'run.completed', id: last.headers['x-verifyhub-delivery'], run: { id: run.id, status: 'completed', counters: { written: 9, credits: 8 }, progress: { percent: 100 } } });
    // Only hooks that asked for the outcome hear it.
    expect(other.received).toHaveLength(0);

    const metrics = await request(h.hub.app).get('/metrics');
    expect(metrics.text).toMatch(/verify_hub_completion_webhook_deliveries_total\{outcome="retry"\} 2/);
    expect(metrics.text).toMatch(/verify_hub_completion_webhook_deliveries_total\{outcome="delivered"\} 1/);
    await request(h.hub.app).delete(`/api/hooks/${hook.body.id}`).set(bearer);
  });

  it('gives up after the configured attempts, and a 410 answer unsubscribes the hook', async () => {
    const failing = await receiver([500, 500, 500, 500, 500]);
    servers.push(failing.server);
    const gone = await receiver([410]);
    servers.push(gone.server);
    const a = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: failing.url, events: ['run.failed'] });
    const b = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: gone.url, events: ['run.failed'] });
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    h.runs.finish(run.id, 'failed', {}, 'engine key revoked');
    await until(() => failing.received.length === 4 && gone.received.length === 1);
    await new Promise((r) => setTimeout(r, 400)); // time for a wrong 5th attempt to show up
    expect(failing.received).toHaveLength(4);
    expect(JSON.parse(gone.received[0]!.body).run.statusReason).toBe('engine key revoked');
    const hooks = (await request(h.hub.app).get('/api/hooks').set(bearer)).body.hooks.map((x: { id: string }) => x.id);
    expect(hooks).toContain(a.body.id);
    expect(hooks).not.toContain(b.body.id);
    const metrics = await request(h.hub.app).get('/metrics');
    expect(metrics.text).toMatch(/verify_hub_completion_webhook_deliveries_total\{outcome="gave_up"\} 1/);
  });
});
