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
    expect(res.body).toMatchObject({ description: 'Every Monday at 03:00', cron: '0 3 * * 1' });
    expect(res.body.next).toHaveLength(5);
    const bad = await request(h.hub.app).get('/api/schedules/preview').query({ cron: 'soon' }).set(bearer);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('cron');
    const zone = await request(h.hub.app).get('/api/schedules/preview').query({ cron: '0 3 * * 1', timezone: 'Nowhere/Land' }).set(bearer);
    expect(zone.body.field).toBe('timezone');
    const missing = await request(h.hub.app).get('/api/schedules/preview').set(bearer);
    expect(missing.body.field).toBe('query.cron');
    const preset = await request(h.hub.app).get('/api/schedules/preview').query({ every: 'week', weekday: '1', time: '09:00', timezone: 'Europe/Paris' }).set(bearer);
    expect(preset.status).toBe(200);
    expect(preset.body).toMatchObject({ description: 'Every Monday at 09:00', cron: '0 9 * * 1' });
    const badPreset = await request(h.hub.app).get('/api/schedules/preview').query({ every: 'month', day: '31', time: '09:00' }).set(bearer);
    expect(badPreset.status).toBe(400);
    expect(badPreset.body).toMatchObject({ field: 'preset.day', error: 'preset.day: must be a day from 1 to 28 (every month has it)' });
  });

  it('saves a preset as its cron pattern and lists it in words', async () => {
    const base = { platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' };
    const weekly = await create({ ...base, preset: { every: 'week', weekday: 1, time: '09:00' }, timezone: 'Europe/Paris' });
    expect(weekly.status).toBe(201);
    expect(weekly.body).toMatchObject({ cron: '0 9 * * 1', timezone: 'Europe/Paris', description: 'Every Monday at 09:00' });
    const monthly = await create({ ...base, preset: { every: 'month', day: 1, time: '06:30' } });
    expect(monthly.body).toMatchObject({ cron: '30 6 1 * *', description: 'Every month on day 1 at 06:30' });
    // A typed pattern that is a preset reads the same; any other in cronstrue's words.
    expect((await create({ ...base, cron: '0 9 * * *' })).body.description).toBe('Every day at 09:00');
    expect((await create({ ...base, cron: '*/30 * * * *' })).body.description).toBe('Every 30 minutes');
    const listed = await request(h.hub.app).get('/api/schedules').set(bearer);
    expect(listed.body.schedules.map((s: { description: string }) => s.description)).toEqual(expect.arrayContaining(['Every Monday at 09:00', 'Every month on day 1 at 06:30']));
  });

  it('explains a bad cron pattern in plain words naming the field, never the library message', async () => {
    const base = { platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' };
    const res = await create({ ...base, cron: '0 9 * * 8' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'INVALID_INPUT', field: 'cron', error: 'cron: the 5th field (day of week) must be 0-7 (0 and 7 are Sunday), * or a name like MON; it is "8"' });
    const preview = await request(h.hub.app).get('/api/schedules/preview').query({ cron: '0 25 * * *' }).set(bearer);
    expect(preview.body.error).toBe('cron: the 2nd field (hour) must be 0-23, * or a step like */6; it is "25"');
    expect(JSON.stringify([res.body, preview.body])).not.toMatch(/constraint|expected range/i);
  });

  it('refuses a schedule without a connection, or with neither or both of preset and cron', async () => {
    const noConnection = await create({ platform: 'hubspot', scope: 'all', preset: { every: 'day', time: '09:00' } });
    expect(noConnection.status).toBe(400);
    expect(noConnection.body).toMatchObject({ field: 'body.connectionId', error: 'body.connectionId: is required: choose the connection to sync' });
    expect((await create({ platform: 'hubspot', connectionId: '', scope: 'all', cron: '0 9 * * *' })).body.field).toBe('body.connectionId');
    const neither = await create({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    expect(neither.body).toMatchObject({ field: 'body.cron', error: expect.stringMatching(/a preset .* or a cron pattern/) });
    const both = await create({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all', cron: '0 9 * * *', preset: { every: 'day', time: '09:00' } });
    expect(both.body).toMatchObject({ field: 'body.cron', error: 'body.cron: give a preset or a cron pattern, not both' });
    const badPreset = await create({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all', preset: { every: 'week', weekday: 7, time: '9am' } });
    expect(badPreset.body.field).toMatch(/^body\.preset\.(weekday|time)$/);
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
