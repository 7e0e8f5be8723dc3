import { deleteKeys, newPrefix, Redis, startHub, type TestHub } from './hub';

/**
 * Issue 37, "also seen": a non-Bearer Authorization header beside a valid session cookie was ignored (the
 * cookie let the request in) although the README says the header wins. Decided: the header wins, whatever
 * its scheme. A request that names its credential gets exactly that credential's answer; falling back to
 * the browser's ambient session would let a request meant for another identity act as the signed-in admin.
 */
const ADMIN_TOKEN = 'header-admin-token-0123456789abcdef';

describe('an Authorization header wins over the session cookie, whatever its scheme', () => {
  // Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  const prefix = newPrefix();
  let h: TestHub;
  let cookie: string;

  beforeAll(async () => {
    h = await startHub(redis, prefix, ADMIN_TOKEN);
    const signIn = await fetch(`${h.base}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: ADMIN_TOKEN }) });
    cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  });
  afterAll(async () => {
    await h.close();
    await deleteKeys(redis, prefix);
    await redis.quit();
  });

  it('the cookie alone is accepted', async () => {
    expect((await fetch(`${h.base}/api/runs`, { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it.each([
    ['Basic with the right token as password', `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}`],
    ['another scheme carrying the right token', `Token ${ADMIN_TOKEN}`],
    ['a scheme without a value', 'Bearer'],
    ['a wrong bearer token', 'Bearer not-the-token'],
  ])('on /api, %s beside a valid cookie is refused with 401, nothing started', async (_name, header) => {
    const res = await fetch(`${h.base}/api/runs`, { method: 'POST', headers: { Cookie: cookie, 'X-VerifyHub-CSRF': '1', Authorization: header, 'Content-Type': 'application/json' }, body: JSON.stringify({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(h.runs.runs.size).toBe(0);
  });

  it('on the queue UI, Basic is that route\'s scheme: a wrong one beside the cookie is refused, the right one accepted', async () => {
    const basic = (password: string) => `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`;
    expect((await fetch(`${h.base}/admin/queues`, { headers: { Cookie: cookie, Authorization: basic('wrong') } })).status).toBe(401);
    expect((await fetch(`${h.base}/admin/queues`, { headers: { Cookie: cookie, Authorization: `Token ${ADMIN_TOKEN}` } })).status).toBe(401);
    expect((await fetch(`${h.base}/admin/queues`, { headers: { Cookie: cookie, Authorization: basic(ADMIN_TOKEN) } })).status).toBe(200);
  });
});
