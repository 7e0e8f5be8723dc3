import { randomUUID } from 'node:crypto';
import { InputError, SecretBox, type ConnectionRecord, type SchemaReport } from '@verify-hub/core';
import { Keys, RedisConnectionStore, createRedis, type ConnectionOperations, type RunEstimate } from '@verify-hub/sync-jobs';
import { FakeSource, InProcessFakeVerifier } from '../fakes/source';
import { setup, waitForStatus } from './helpers';

/** A platform whose write-back fields are created on the first ensureSchema and found on the next ones. */
class SchemaSource extends FakeSource {
  static fields = new Map<string, Set<string>>();
  constructor(private readonly connection: ConnectionRecord) {
    super({ size: 50, pageSize: 20, emailOf: (i) => `u${i % 40}@example.com` });
  }
  override async ensureSchema(): Promise<SchemaReport> {
    const portal = String(this.connection.settings?.portalId);
    const existing = SchemaSource.fields.get(portal) ?? new Set<string>();
    const wanted = ['ev_risk', 'ev_score', 'ev_reason'];
    const created = wanted.filter((f) => !existing.has(f));
    SchemaSource.fields.set(portal, new Set(wanted));
    return { created, existing: wanted.filter((f) => !created.includes(f)), problems: [] };
  }
}

describe('connection operations', () => {
  it('ensureSchema builds the stored connection’s connector and creates its fields once; estimate is a RunEstimate', async () => {
    const prefix = `vhtest-${randomUUID().slice(0, 8)}`;
    const redis = createRedis(process.env.REDIS_URL!);
    const connections = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('c'.repeat(40)));
    const t = await setup({ size: 1 }, {}, { prefix, connections });
    t.registry.register('schema', (connection) => new SchemaSource(connection));
    await connections.save({ id: 'schema-1', platform: 'schema', label: 'Portal 1', createdAt: new Date().toISOString(), credentials: { accessToken: 't' }, settings: { portalId: '111' } });
    const operations: ConnectionOperations = t.pipeline;
    const workers = t.pipeline.startWorkers({ verifier: new InProcessFakeVerifier() });
    try {
      expect(await operations.ensureSchema('schema-1')).toEqual({ created: ['ev_risk', 'ev_score', 'ev_reason'], existing: [], problems: [] });
      expect(await operations.ensureSchema('schema-1')).toEqual({ created: [], existing: ['ev_risk', 'ev_score', 'ev_reason'], problems: [] });

      for (const id of ['missing', '']) {
        const error = await operations.ensureSchema(id).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InputError);
        expect(error).toMatchObject({ field: 'connectionId' });
      }

      const before: RunEstimate = await operations.estimate({ platform: 'schema', connectionId: 'schema-1', scope: 'all' });
      expect(before).toEqual({ contacts: 50, unique: 40, cached: 0, estimatedCredits: 40 });
      const run = await t.pipeline.start({ platform: 'schema', connectionId: 'schema-1', scope: 'all' });
      expect((await waitForStatus(t.pipeline, run.id, ['completed', 'failed'])).status).toBe('completed');
      expect(await operations.estimate({ platform: 'schema', connectionId: 'schema-1', scope: 'all' })).toEqual({ contacts: 50, unique: 40, cached: 40, estimatedCredits: 0 });
      await expect(operations.estimate({ platform: 'schema', connectionId: 'missing', scope: 'all' })).rejects.toMatchObject({ field: 'connectionId' });
    } finally {
      await workers.close();
      await t.done();
      await redis.quit();
    }
  });
});
