import request from 'supertest';
import { createHarness, bearer, ADMIN_TOKEN, type Harness } from './harness';

describe('admin API (/api)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  describe('auth', () => {
    const unusable = 'unusable Authorization header: send "Authorization: Bearer <HUB_ADMIN_TOKEN>" (a header wins over the session cookie)';
    it.each([
      ['no Authorization header', undefined, 'missing bearer token'],
      ['a wrong token', `Bearer ${ADMIN_TOKEN}x`, 'invalid token'],
      ['a token prefix', `Bearer ${ADMIN_TOKEN.slice(0, 10)}`, 'invalid token'],
      ['another scheme', `Token ${ADMIN_TOKEN}`, unusable],
      ['Basic auth (browsers only use it on the queue UI)', `Basic ${Buffer.from(`x:${ADMIN_TOKEN}`).toString('base64')}`, unusable],
    ])('refuses %s with 401 in the engine shape', async (_name, header, message) => {
      const req = request(h.hub.app).get('/api/runs');
      const res = await (header ? req.set('Authorization', header) : req);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: message, code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    });

    it('checks the token before reading the body', async () => {
      const res = await request(h.hub.app).post('/api/runs').set('content-type', 'application/json').send('{not json');
      expect(res.status).toBe(401);
    });

    it('keeps the admin API closed when no token is configured', async () => {
      const open = await createHarness({ adminToken: undefined });
      try {
        const res = await request(open.hub.app).get('/api/runs').set('Authorization', 'Bearer ');
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('ADMIN_DISABLED');
      } finally {
        await open.close();
      }
    });
  });

  describe('runs', () => {
    it('starts a run and answers 201 with the record, its progress and Location', async () => {
      const res = await request(h.hub.app).post('/api/runs').set(bearer).send({ platform: 'hubspot', connectionId: 'hubspot-123', scope: 'all', options: { dryRun: true, maxCredits: 500 } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ platform: 'hubspot', connectionId: 'hubspot-123', scope: 'all', status: 'queued', options: { dryRun: true, maxCredits: 500 }, progress: { done: 0, pulled: 0 } });
      expect(res.headers.location).toBe(`/api/runs/${res.body.id}`);
      const stored = await h.runs.get(res.body.id);
      expect(stored?.options).toEqual({ dryRun: true, maxCredits: 500 });
    });

    it.each([
      [{ scope: 'all' }, 'body.platform'],
      [{ platform: 'hubspot' }, 'body.scope'],
      [{ platform: 'HubSpot!', scope: 'all' }, 'body.platform'],
      [{ platform: 'hubspot', scope: '' }, 'body.scope'],
      [{ platform: 'hubspot', scope: 'all', options: { maxCredits: -1 } }, 'body.options.maxCredits'],
      [{ platform: 'hubspot', scope: 'all', options: { actions: { invalid: 'delete' } } }, 'body.options.actions.invalid'],
      [{ platform: 'hubspot', scope: 'all', extra: 1 }, 'body'],
      [{ platform: 'file', scope: 'file:/etc/passwd' }, 'body.platform'],
    ])('refuses %j with a 400 naming %s', async (body, field) => {
      const before = h.runs.runs.size;
      const res = await request(h.hub.app).post('/api/runs').set(bearer).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_INPUT');
      expect(res.body.field).toBe(field);
      expect(res.body.error.startsWith(`${field}`)).toBe(true);
      expect(h.runs.runs.size).toBe(before);
    });

    it('answers malformed JSON with 400 and an oversize body with 413', async () => {
      const bad = await request(h.hub.app).post('/api/runs').set(bearer).set('content-type', 'application/json').send('{"platform":');
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'INVALID_INPUT', field: 'body' });
      const big = await request(h.hub.app).post('/api/runs').set(bearer).send({ platform: 'hubspot', scope: 'x'.repeat(1024 * 1024 + 10) });
      expect(big.status).toBe(413);
      // Refused from its declared length, before it is read.
      expect(big.body).toEqual({ error: expect.stringMatching(/^request body: \d+ bytes declared, over the limit of 1048576 bytes for this route$/), code: 'PAYLOAD_TOO_LARGE' });
    });

    it('gets, lists and filters runs, with progress from the counters (no percentage without a total known at start)', async () => {
      const a = await h.runs.start({ platform: 'mailchimp', connectionId: 'mc-1', scope: 'audience:abc' });
      h.runs.update(a.id, { status: 'running', counters: { ...a.counters, pulled: 200, written: 40, unchanged: 10 } });
      const got = await request(h.hub.app).get(`/api/runs/${a.id}`).set(bearer);
      expect(got.status).toBe(200);
      // The audience gave no total: 50 done "so far", not 25 % of what was read so far.
      expect(got.body.progress).toEqual({ done: 50, pulled: 200 });
      const list = await request(h.hub.app).get('/api/runs?status=running&limit=10').set(bearer);
      expect(list.status).toBe(200);
      expect(list.body.runs.map((r: { id: string }) => r.id)).toEqual([a.id]);
      const badLimit = await request(h.hub.app).get('/api/runs?limit=0').set(bearer);
      expect(badLimit.status).toBe(400);
      expect(badLimit.body.field).toBe('query.limit');
      const badStatus = await request(h.hub.app).get('/api/runs?status=done').set(bearer);
      expect(badStatus.body.field).toBe('query.status');
    });

    it('answers 404 for an unknown run and 400 for a malformed id', async () => {
      for (const path of ['/api/runs/nope', '/api/runs/nope/report.csv']) {
        const res = await request(h.hub.app).get(path).set(bearer);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('NOT_FOUND');
      }
      const res = await request(h.hub.app).post('/api/runs/nope/cancel').set(bearer);
      expect(res.status).toBe(404);
      const bad = await request(h.hub.app).get(`/api/runs/${encodeURIComponent('a b')}`).set(bearer);
      expect(bad.status).toBe(400);
      expect(bad.body.field).toBe('params.id');
    });

    it('cancels, resumes and re-checks unknowns', async () => {
      const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
      h.runs.update(run.id, { status: 'paused', statusReason: 'engine quota reached' });
      const resumed = await request(h.hub.app).post(`/api/runs/${run.id}/resume`).set(bearer);
      expect(resumed.status).toBe(200);
      expect(resumed.body.status).toBe('running');
      const cancelled = await request(h.hub.app).post(`/api/runs/${run.id}/cancel`).set(bearer);
      expect(cancelled.body.status).toBe('cancelled');
      // The pipeline refuses to cancel a finished run: the client hears why, as a 400.
      const again = await request(h.hub.app).post(`/api/runs/${run.id}/cancel`).set(bearer);
      expect(again.status).toBe(400);
      expect(again.body.error).toContain('already cancelled');
      const recheck = await request(h.hub.app).post(`/api/runs/${run.id}/recheck-unknowns`).set(bearer);
      expect(recheck.status).toBe(201);
      expect(recheck.body.id).not.toBe(run.id);
      expect(recheck.body.scope).toBe(`recheck:${run.id}`);
    });

    it('streams the per-record report as CSV, neutralising formulas', async () => {
      const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
      h.runs.reports.set(run.id, [
        { contactId: '1', email: 'a@example.com', risk: 'safe', score: 92, reason: 'deliverable', outcome: 'written' },
        { contactId: '2', email: '=HYPERLINK("x")@evil.test', risk: 'invalid', score: 3, reason: 'mailbox_not_found', outcome: 'failed', error: 'property, "ev_risk"' },
      ]);
      const res = await request(h.hub.app).get(`/api/runs/${run.id}/report.csv`).set(bearer);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      expect(res.headers['content-disposition']).toContain(`run-${run.id}-report.csv`);
      expect(res.text.trim().split('\n')).toEqual([
        'contactId,email,risk,score,reason,outcome,error',
        '1,a@example.com,safe,92,deliverable,written,',
        `2,"'=HYPERLINK(""x"")@evil.test",invalid,3,mailbox_not_found,failed,"property, ""ev_risk"""`,
      ]);
    });

    it('answers internal failures with 500 and no detail', async () => {
      const spy = jest.spyOn(h.runs, 'list').mockRejectedValueOnce(new Error('ECONNREFUSED redis://:hunter2@db:6379'));
      const res = await request(h.hub.app).get('/api/runs').set(bearer);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'internal error', code: 'INTERNAL' });
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toContain('at ');
      spy.mockRestore();
    });
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await request(h.hub.app).get('/nothing/here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
