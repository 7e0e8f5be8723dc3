import IORedis, { Cluster, type Redis } from 'ioredis';
import { autoPipelinedCopy } from '../../sync-jobs/src/redis';

// The pipeline's per-address connection. On a Cluster, duplicate() takes startup nodes first: options
// passed as its only argument were dropped, and the copy was silently not pipelined.
describe('autoPipelinedCopy', () => {
  const made: { disconnect(): void }[] = [];
  afterEach(() => made.splice(0).forEach((client) => client.disconnect()));

  it('a single server: a copy of the same connection, auto-pipelined', () => {
    const redis = new IORedis('redis://127.0.0.1:1/3', { lazyConnect: true });
    const copy = autoPipelinedCopy(redis);
    made.push(redis, copy);
    expect(redis.options.enableAutoPipelining).toBe(false);
    expect(copy.options).toMatchObject({ enableAutoPipelining: true, port: 1, db: 3, lazyConnect: true });
  });

  it('a cluster: the same startup nodes, auto-pipelined at the cluster level', () => {
    const nodes = [{ host: '127.0.0.1', port: 1 }, { host: '127.0.0.1', port: 2 }];
    const cluster = new Cluster(nodes, { lazyConnect: true });
    const copy = autoPipelinedCopy(cluster as unknown as Redis) as unknown as Cluster;
    made.push(cluster, copy);
    expect(copy.isCluster).toBe(true);
    expect(copy.options).toMatchObject({ enableAutoPipelining: true, lazyConnect: true });
    expect((copy as unknown as { startupNodes: unknown[] }).startupNodes).toEqual(nodes);
  });
});
