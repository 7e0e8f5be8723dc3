import { createHash } from 'node:crypto';
import request from 'supertest';
import { createHarness, bearer, captureLogs, ADMIN_TOKEN, type Harness } from './harness';

/** The `vh_session=<id>` pair of a sign-in's Set-Cookie. */
function sessionCookie(res: request.Response): string {
  const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  const cookie = header.find((c) => c.startsWith('vh_session='));
  if (!cookie) throw new Error(`no session cookie in ${JSON.stringify(header)}`);
  return cookie.split(';')[0]!;
}

describe('dashboard sessions (/api/session)', () => {
  let h: Harness;
  const logs = captureLogs();
  const seen: string[] = [];
  /** Keeps every answer's headers and body, to check that neither the token nor a session id leaks. */
  const keep = (res: request.Response) => {
    seen.push(JSON.stringify(res.headers), res.text ?? '');
    return res;
  };
  const signIn = async (token = ADMIN_TOKEN, address?: string) => {
    const req = request(h.hub.app).post('/api/session').send({ token });
    return keep(await (address ? req.set('X-Forwarded-For', address) : req));
  };

  beforeAll(async () => {
    h = await createHarness({ logger: logs.logger, trustProxy: true, throttle: { perAddress: 3 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('signs in with the admin token: an HttpOnly, Secure, SameSite=Strict cookie for 12 hours, only its hash in Redis', async () => {
    const res = await signIn();
    expect(res.status).toBe(204);
    const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
    expect(setCookie).toMatch(/^vh_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    const id = sessionCookie(res).slice('vh_session='.length);
    const key = `${h.prefix}session:${createHash('sha256').update(id).digest('hex')}`;
    const ttl = await h.redis.ttl(key);
    expect(ttl).toBeGreaterThan(43_000);
    expect(ttl).toBeLessThanOrEqual(43_200);
    const keys = await h.redis.keys(`${h.prefix}*`);
    expect(keys.join('\n')).not.toContain(id);
    const me = keep(await request(h.hub.app).get('/api/session').set('Cookie', sessionCookie(res)));
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ signedIn: true });
    expect((await request(h.hub.app).get('/api/session')).status).toBe(401);
  });

  it('accepts the cookie on the API; unsafe requests need X-VerifyHub-CSRF: 1, bearer requests do not', async () => {
    const cookie = sessionCookie(await signIn());
    const list = keep(await request(h.hub.app).get('/api/runs').set('Cookie', cookie));
    expect(list.status).toBe(200);
    expect(list.body.runs).toEqual([]);

    const body = { platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' };
    const forged = keep(await request(h.hub.app).post('/api/runs').set('Cookie', cookie).send(body));
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('CSRF');
    expect(h.runs.runs.size).toBe(0);
    const wrongValue = await request(h.hub.app).post('/api/runs').set('Cookie', cookie).set('X-VerifyHub-CSRF', 'yes').send(body);
    expect(wrongValue.status).toBe(403);

    const fromDashboard = keep(await request(h.hub.app).post('/api/runs').set('Cookie', cookie).set('X-VerifyHub-CSRF', '1').send(body));
    expect(fromDashboard.status).toBe(201);
    const withBearer = keep(await request(h.hub.app).post('/api/runs').set(bearer).send(body));
    expect(withBearer.status).toBe(201);

    // A presented Authorization header wins: a wrong token is refused even with a good cookie.
    const wrongBearer = await request(h.hub.app).get('/api/runs').set('Cookie', cookie).set('Authorization', 'Bearer nope');
    expect(wrongBearer.status).toBe(401);
  });

  it('signs out: the session is gone server-side and the cookie is cleared', async () => {
    const cookie = sessionCookie(await signIn());
    const out = keep(await request(h.hub.app).delete('/api/session').set('Cookie', cookie));
    expect(out.status).toBe(204);
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? [])[0]).toMatch(/^vh_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict$/);
    const after = keep(await request(h.hub.app).get('/api/runs').set('Cookie', cookie));
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'session expired or signed out: sign in again', code: 'UNAUTHORIZED' });
    expect((await request(h.hub.app).get('/api/session').set('Cookie', cookie)).status).toBe(401);
    // Signing out twice, or without a session, is fine.
    expect((await request(h.hub.app).delete('/api/session')).status).toBe(204);
  });

  it('refuses a wrong or missing token without a cookie, and a made-up cookie', async () => {
    const wrong = await signIn(`${ADMIN_TOKEN}x`, '198.51.100.1');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'wrong admin token', code: 'UNAUTHORIZED' });
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const missing = keep(await request(h.hub.app).post('/api/session').send({}));
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('body.token');
    const madeUp = await request(h.hub.app).get('/api/runs').set('Cookie', 'vh_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(madeUp.status).toBe(401);
  });

  it('limits failed sign-ins per client address: 429 with Retry-After, even for the right token, other addresses unaffected', async () => {
    const attacker = '203.0.113.7';
    for (let i = 0; i < 3; i++) expect((await signIn(`guess-${i}`, attacker)).status).toBe(401);
    const blocked = await signIn(`guess-4`, attacker);
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('TOO_MANY_ATTEMPTS');
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect((await signIn(ADMIN_TOKEN, attacker)).status).toBe(429);
    expect((await signIn(ADMIN_TOKEN, '203.0.113.8')).status).toBe(204);
    // The counter is in Redis under the hub's prefix, so every instance shares it.
    expect((await h.redis.keys(`${h.prefix}auth-failures*`)).length).toBeGreaterThan(0);
  });

  it('lets the queue UI in with the session cookie; its unsafe requests need the header or a same-origin fetch', async () => {
    const cookie = sessionCookie(await signIn());
    const page = await request(h.hub.app).get('/admin/queues').set('Cookie', cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<!DOCTYPE html>');
    const queue = h.hub.ingest.queue.name;
    const forged = await request(h.hub.app).put(`/admin/queues/api/queues/${queue}/pause`).set('Cookie', cookie);
    expect(forged.status).toBe(403);
    const sameOrigin = await request(h.hub.app).put(`/admin/queues/api/queues/${queue}/pause`).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin');
    expect([401, 403]).not.toContain(sameOrigin.status);
    await h.hub.ingest.queue.resume();
  });

  it('never puts the token or a session id in an answer or a log line', async () => {
    const ids = seen.join('\n').match(/vh_session=([A-Za-z0-9_-]{43})/g) ?? [];
    expect(ids.length).toBeGreaterThan(0);
    const logText = logs.lines.join('');
    expect(logText).toContain('"route":"/api/session"');
    expect(logText).not.toContain(ADMIN_TOKEN);
    for (const id of ids) expect(logText).not.toContain(id.slice('vh_session='.length));
    const answers = seen.join('\n');
    expect(answers).not.toContain(ADMIN_TOKEN);
  });
});
