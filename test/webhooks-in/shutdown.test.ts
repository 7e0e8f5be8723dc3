import { request as httpRequest } from 'node:http';
import { startHubServer } from '@verify-hub/webhooks-in';
import { createHarness, type Harness } from './harness';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful shutdown', () => {
  let h: Harness;
  let releaseSlow: () => void = () => undefined;
  let slowStarted: () => void = () => undefined;
  const started = new Promise<void>((r) => (slowStarted = r));

  beforeAll(async () => {
    h = await createHarness({
      mounts: [
        {
          path: '/slow',
          handler: (_req, res) => {
            slowStarted();
            new Promise<void>((r) => (releaseSlow = r)).then(() => res.json({ done: true }));
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it('stops accepting, lets in-flight requests finish, then closes workers and queues in order', async () => {
    const order: string[] = [];
    const server = await startHubServer(h.hub, {
      port: 0,
      host: '127.0.0.1',
      closeAfter: [async () => void order.push('workers'), async () => void order.push('queues')],
    });
    expect((await get(`${server.url}/healthz`)).status).toBe(200);

    const inFlight = get(`${server.url}/slow`);
    await started;
    const closing = server.close();
    // Readiness fails at once and new connections are refused while the slow request is still running.
    await expect(get(`${server.url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(order).toEqual([]);
    releaseSlow();
    expect(await inFlight).toEqual({ status: 200, body: '{"done":true}' });
    await closing;
    expect(order).toEqual(['workers', 'queues']);
    expect(server.close()).toBe(closing);
  });
});
