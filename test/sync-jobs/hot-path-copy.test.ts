import IORedis, { Cluster, type Redis } from 'ioredis';
import { hotPathCopy } from '../../sync-jobs/src/redis';

// The pipeline's per-address connection. A Cluster's duplicate() takes startup nodes first, so the copy
// must keep the original's nodes; and it must not auto-pipeline there (redis.ts: a failover mid-batch
// failed whole auto-pipelines, which redis-cluster.test.ts's failover run showed as 5,700 failed contacts).
describe('hotPathCopy', () => {
  const made: { disconnect(): void }[] = [];
  afterEach(() => made.splice(0).forEach((client) => client.disconnect()));

  it('a single server: a copy of the same connection, auto-pipelined', () => {
    const redis = new IORedis('redis://127.0.0.1:1/3', { lazyConnect: true });
    const copy = hotPathCopy(redis);
    made.push(redis, copy);
    expect(redis.options.enableAutoPipelining).toBe(false);
    expect(copy.options).toMatchObject({ enableAutoPipelining: true, port: 1, db: 3, lazyConnect: true });
  });

  it('a cluster: the same startup nodes and options, not auto-pipelined', () => {
    const nodes = [{ host: '127.0.0.1', port: 1 }, { host: '127.0.0.1', port: 2 }];
    const cluster = new Cluster(nodes, { lazyConnect: true, maxRedirections: 7 });
    const copy = hotPathCopy(cluster as unknown as Redis) as unknown as Cluster;
    made.push(cluster, copy);
    expect(copy).not.toBe(cluster);
    expect(copy.isCluster).toBe(true);
    expect(copy.options).toMatchObject({ enableAutoPipelining: false, lazyConnect: true, maxRedirections: 7 });
    expect((copy as unknown as { startupNodes: unknown[] }).startupNodes).toEqual(nodes);
  });
});
