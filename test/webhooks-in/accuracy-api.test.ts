import request from 'supertest';
import type { AccuracyService } from '@verify-hub/sync-jobs';
import { accuracyReport } from '@verify-hub/sync-jobs';
import { ADMIN_TOKEN, createHarness, type Harness } from './harness';

const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** GET /api/accuracy and POST /api/accuracy/read: the window and connection checked, the service's answer as it is, 503 without one. */
describe('the accuracy API', () => {
  const asked: { days: number; connectionId?: string }[] = [];
  const reads: (string | undefined)[] = [];
  const service: AccuracyService = {
    accuracy: async (days, connectionId) => {
      asked.push({ days, connectionId });
      return { days, overall: accuracyReport([], days, 0), connections: [] };
    },
    readBounces: async (connectionId) => {
      reads.push(connectionId);
      return [{ connectionId: connectionId ?? 'all', platform: 'mailchimp', pages: 1, records: 0, corrected: 0, written: 0, writeFailed: 0, calls: 1 }];
    },
  };
  let hub: Harness;
  let bare: Harness;
  beforeAll(async () => {
    [hub, bare] = await Promise.all([createHarness({ accuracy: service }), createHarness()]);
  });
  afterAll(async () => {
    await hub.close();
    await bare.close();
  });

  it('answers the report for 30 days by default, 90 when asked, for one connection when named', async () => {
    const first = await request(hub.hub.app).get('/api/accuracy').set(auth);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ days: 30, overall: { days: 30, corrected: 0 }, connections: [] });
    expect((await request(hub.hub.app).get('/api/accuracy?days=90&connection=mailchimp-us1-abc').set(auth)).status).toBe(200);
    expect(asked).toEqual([{ days: 30, connectionId: undefined }, { days: 90, connectionId: 'mailchimp-us1-abc' }]);
  });

  it('refuses another window, an odd connection id or an unknown parameter, naming the field', async () => {
    const days = await request(hub.hub.app).get('/api/accuracy?days=7').set(auth);
    expect([days.status, days.body.field]).toEqual([400, 'query.days']);
    const connection = await request(hub.hub.app).get('/api/accuracy?connection=a%20b').set(auth);
    expect([connection.status, connection.body.field]).toEqual([400, 'query.connection']);
    expect((await request(hub.hub.app).get('/api/accuracy?email=x@example.com').set(auth)).status).toBe(400);
    expect(asked).toHaveLength(2);
  });

  it('reads the bounces now, admin only; 503 without the pipeline', async () => {
    expect((await request(hub.hub.app).get('/api/accuracy')).status).toBe(401);
    const read = await request(hub.hub.app).post('/api/accuracy/read').set(auth).send({ connection: 'hubspot-42' });
    expect(read.status).toBe(200);
    expect(read.body.read[0]).toMatchObject({ connectionId: 'hubspot-42', calls: 1 });
    expect(reads).toEqual(['hubspot-42']);
    const off = await request(bare.hub.app).get('/api/accuracy').set(auth);
    expect([off.status, off.body.code]).toEqual([503, 'ACCURACY_DISABLED']);
  });
});
