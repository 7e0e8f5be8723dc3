import request from 'supertest';
import { createHarness, bearer, type Harness } from './harness';
import { FakeScheduleService } from './dashboard-fakes';

describe('dashboard API: schedules', () => {
  let h: Harness;
  const schedules = new FakeScheduleService();
  beforeAll(async () => {
    h = await createHarness({ schedules });
  });
  afterAll(async () => {
    await h.close();
  });

  const create = (body: Record<string, unknown>) => request(h.hub.app).post('/api/schedules').set(bearer).send(body);

  it('creates, lists, pauses, resumes and deletes a schedule', async () => {
    const created = await create({ cron: '0 3 * * 1', timezone: 'Europe/Paris', platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all', options: { maxCredits: 500 } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ cron: '0 3 * * 1', timezone: 'Europe/Paris', paused: false, request: { platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all', options: { maxCredits: 500 } } });
    const named = await create({ id: 'weekly-mailchimp', cron: '0 4 * * *', platform: 'mailchimp', connectionId: 'mailchimp-us4-a', scope: 'all' });
    expect(named.status).toBe(201);
    expect(named.body.id).toBe('weekly-mailchimp');

    const list = await request(h.hub.app).get('/api/schedules').set(bearer);
    expect(list.status).toBe(200);
    expect(list.body.schedules.map((s: { id: string }) => s.id).sort()).toEqual([id, 'weekly-mailchimp'].sort());

    const paused = await request(h.hub.app).post(`/api/schedules/${id}/pause`).set(bearer);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id, paused: true });
    const resumed = await request(h.hub.app).post(`/api/schedules/${id}/resume`).set(bearer);
    expect(resumed.body).toMatchObject({ id, paused: false });

    expect((await request(h.hub.app).delete(`/api/schedules/${id}`).set(bearer)).status).toBe(204);
    expect((await request(h.hub.app).delete(`/api/schedules/${id}`).set(bearer)).status).toBe(404);
    expect((await request(h.hub.app).post(`/api/schedules/${id}/pause`).set(bearer)).status).toBe(404);
    expect((await request(h.hub.app).post('/api/schedules/nope/resume').set(bearer)).status).toBe(404);
  });

  it('refuses bad input naming the field: the pattern and zone (the service), the rest (the body)', async () => {
    const base = { cron: '0 3 * * 1', platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' };
    const cron = await create({ ...base, cron: 'every monday' });
    expect(cron.status).toBe(400);
    expect(cron.body).toMatchObject({ code: 'INVALID_INPUT', field: 'cron' });
    const zone = await create({ ...base, timezone: 'Mars/Olympus' });
    expect(zone.body).toMatchObject({ code: 'INVALID_INPUT', field: 'timezone' });
    for (const [body, field] of [
      [{ ...base, cron: undefined }, 'body.cron'],
      [{ ...base, platform: 'file' }, 'body.platform'],
      [{ ...base, connectionId: undefined }, 'body.connectionId'],
      [{ ...base, scope: '' }, 'body.scope'],
      [{ ...base, options: { maxCredits: -1 } }, 'body.options.maxCredits'],
      [{ ...base, id: 'a b' }, 'body.id'],
    ] as const) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.field).toBe(field);
    }
  });

  it('previews a cron pattern in words with its next runs; 400 naming cron or timezone', async () => {
    const res = await request(h.hub.app).get('/api/schedules/preview').query({ cron: '0 3 * * 1', timezone: 'UTC' }).set(bearer);
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('cron 0 3 * * 1');
    expect(res.body.next).toHaveLength(5);
    const bad = await request(h.hub.app).get('/api/schedules/preview').query({ cron: 'soon' }).set(bearer);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cron');
    const zone = await request(h.hub.app).get('/api/schedules/preview').query({ cron: '0 3 * * 1', timezone: 'Nowhere/Land' }).set(bearer);
    expect(zone.body.field).toBe('timezone');
    const missing = await request(h.hub.app).get('/api/schedules/preview').set(bearer);
    expect(missing.body.field).toBe('query.cron');
  });

  it('answers 503 when the deployment has no schedules, and 401 without auth', async () => {
    expect((await request(h.hub.app).get('/api/schedules')).status).toBe(401);
    const none = await createHarness();
    try {
      const res = await request(none.hub.app).get('/api/schedules').set(bearer);
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SCHEDULES_DISABLED');
    } finally {
      await none.close();
    }
  });
});
