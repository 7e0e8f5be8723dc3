import IORedis, { Cluster, type Redis } from 'ioredis';
import { hotPathConnection } from '../../sync-jobs/src/redis';

// The pipeline's per-address connection: auto-pipelined on one server; on a Cluster the pipeline's own
// client, never auto-pipelined (redis.ts: a failover mid-batch failed whole auto-pipelines, which
// redis-cluster.test.ts's failover run showed as 5,700 failed contacts).
describe('hotPathConnection', () => {
  const made: { disconnect(): void }[] = [];
  afterEach(() => made.splice(0).forEach((client) => client.disconnect()));

  it('a single server: a copy of the same connection, auto-pipelined', () => {
    const redis = new IORedis('redis://127.0.0.1:1/3', { lazyConnect: true });
    const copy = hotPathConnection(redis);
    made.push(redis, copy);
    expect(copy).not.toBe(redis);
    expect(redis.options.enableAutoPipelining).toBe(false);
    expect(copy.options).toMatchObject({ enableAutoPipelining: true, port: 1, db: 3, lazyConnect: true });
  });

  it('a cluster: the same client, not auto-pipelined', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    made.push(cluster);
    const hotPath = hotPathConnection(cluster as unknown as Redis) as unknown as Cluster;
    expect(hotPath).toBe(cluster);
    expect(hotPath.options.enableAutoPipelining).toBe(false);
  });
});
