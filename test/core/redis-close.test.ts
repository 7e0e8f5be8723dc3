import { createServer } from 'node:net';
import { closeRedis } from '@verify-hub/core';
import { createRedis } from '@verify-hub/sync-jobs';
import { until } from '../setup/until';

const timers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('closing a Redis client', () => {
  it('while its Redis is down lets the process go at once, not 2 s later (jest kills a worker still alive after 500 ms)', async () => {
    const before = timers();
    const client = createRedis(`redis://127.0.0.1:${await closedPort()}`, { retryStrategy: () => 50 });
    client.on('error', () => undefined);
    await until(() => client.status === 'reconnecting', 10_000, 'the client to find Redis down');
    await closeRedis(client);
    const closed = Date.now();
    await until(() => timers() <= before, 10_000, 'the closed client to hold no timer');
    // ioredis's own default waits 2000 ms here; ours 200 ms. 1500 ms leaves a loaded machine's timer lag room.
    expect(Date.now() - closed).toBeLessThan(1500);
  });

  it('after QUIT holds nothing either', async () => {
    const before = timers();
    const client = createRedis(process.env.REDIS_URL!);
    await client.ping();
    await closeRedis(client);
    const closed = Date.now();
    await until(() => timers() <= before && client.status === 'end', 10_000, 'the closed client to end');
    expect(Date.now() - closed).toBeLessThan(1500);
  });
});
