import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ConfigError } from '@verify-hub/core';
import { OutboundGuard } from '@verify-hub/webhooks-in';
import { startServe } from '../../cli/src/commands/serve';
import { loadHubConfig } from '../../cli/src/platforms';
import { createHarness, bearer, type Harness } from '../webhooks-in/harness';
import { silentLogger } from '../webhooks-in/harness';
import { until } from '../webhooks-in/serve-stack';

/**
 * Issue 37's attack on completion hooks, replayed: POST /api/hooks accepted the cloud metadata
 * address, localhost, [::1], 0.0.0.0 and 2130706433, and a hook at the local Redis port received a
 * real POST (retried 8 times) when a run completed. Now each is refused at registration (400 naming
 * body.url, nothing stored) and, for a name that resolves to a public address at registration and a
 * loopback one at delivery (DNS rebinding), at connect time: no connection is ever opened.
 */
const ATTACKS = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://localhost:6379/',
  'http://[::1]:6379/',
  'http://0.0.0.0:6379/',
  'http://2130706433:6379/',
  'http://0x7f.0.0.1:6379/',
  'http://[::ffff:127.0.0.1]:6379/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://10.0.0.8/hook',
  'http://192.168.1.1/hook',
  'http://100.64.0.1/hook',
  'http://224.0.0.1/hook',
  'http://[fe80::1]/hook',
  'http://[fd00::1]/hook',
];

/** A TCP listener that counts every connection made to it (as the Redis port would have seen the POST). */
async function tcpTrap(): Promise<{ port: number; connections: () => number; server: Server }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, connections: () => count, server };
}

describe('completion hooks reach the public internet only', () => {
  let h: Harness;
  let trap: Awaited<ReturnType<typeof tcpTrap>>;
  let lookups = 0;
  // rebind.example resolves to a public address first (registration), then to loopback (delivery).
  const rebinding = new OutboundGuard({
    lookup: async (hostname) => {
      if (hostname !== 'rebind.example') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return lookups++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    },
  });

  beforeAll(async () => {
    trap = await tcpTrap();
    h = await createHarness({ outbound: rebinding, delivery: { queueName: `test-sec-hooks-${randomUUID()}`, attempts: 8, backoffMs: 20, timeoutMs: 2000 } });
  });
  afterAll(async () => {
    await h.hub.delivery!.deliveryQueue.obliterate({ force: true });
    await h.close();
    await new Promise((r) => trap.server.close(r));
  });

  it.each(ATTACKS)('refuses %s at registration with a 400 naming body.url', async (url) => {
    const res = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('body.url');
    expect(res.body.code).toBe('ADDRESS_NOT_ALLOWED');
  });

  it('stored none of them', async () => {
    expect((await request(h.hub.app).get('/api/hooks').set(bearer)).body.hooks).toEqual([]);
  });

  it('refuses a rebinding name at connect time: the loopback port never sees a connection, and it is not retried', async () => {
    const created = await request(h.hub.app).post('/api/hooks').set(bearer).send({ url: `http://rebind.example:${trap.port}/hook`, events: ['run.completed'] });
    expect(created.status).toBe(201);
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    h.runs.finish(run.id, 'completed', { pulled: 1, verified: 1, credits: 1 });
    const queue = h.hub.delivery!.deliveryQueue;
    const failed = await until(async () => (await queue.getFailed()).find((job) => job.data.run.id === run.id), (job) => job !== undefined);
    expect(failed!.attemptsMade).toBe(1);
    expect(failed!.failedReason).toMatch(/127\.0\.0\.1, a loopback address/);
    expect(trap.connections()).toBe(0);
  });
});

describe('HUB_OUTBOUND_ALLOW', () => {
  it('is validated at start-up: a bad entry stops `serve` naming the variable', async () => {
    const config = loadHubConfig({ REDIS_URL: process.env.REDIS_URL, HUB_OUTBOUND_ALLOW: 'hooks.internal, not a host!', LOG_LEVEL: 'silent' });
    await expect(startServe(config, { port: 0, host: '127.0.0.1', logger: silentLogger })).rejects.toThrow(ConfigError);
    await expect(startServe(config, { port: 0, host: '127.0.0.1', logger: silentLogger })).rejects.toThrow(/^HUB_OUTBOUND_ALLOW: "not a host!" is not a host name/);
  });

  it('lets an operator allow an internal host by name, address or range, and nothing else', async () => {
    const guard = new OutboundGuard({ allow: 'hooks.internal,10.1.0.0/16,::1', lookup: async () => [{ address: '10.9.9.9', family: 4 }] });
    await expect(guard.check('http://hooks.internal/x', 'url')).resolves.toBeUndefined();
    await expect(guard.check('http://10.1.2.3/x', 'url')).resolves.toBeUndefined();
    await expect(guard.check('http://[::1]/x', 'url')).resolves.toBeUndefined();
    await expect(guard.check('http://other.internal/x', 'url')).rejects.toThrow(/resolved to 10\.9\.9\.9, a private address/);
    await expect(guard.check('http://127.0.0.1/x', 'url')).rejects.toThrow(/loopback/);
  });
});
