import { join } from 'node:path';

/**
 * The dashboard's browser code that runs without a page: the fetch wrapper (against a recording
 * `fetch`) and the hash routes. Loaded by a computed path with the little of their types used here:
 * the front end is type-checked by its own tsconfig (DOM, JSX), and an import would pull the DOM's
 * types into the Node type check. The pages themselves are covered by the e2e tests.
 */
interface DashboardApi {
  ApiError: abstract new (...args: never[]) => Error;
  setUnauthorizedHandler(handler: () => void): void;
  signIn(token: string): Promise<void>;
  signOut(): Promise<void>;
  hasSession(): Promise<boolean>;
  listRuns(limit: number): Promise<unknown>;
  getRun(id: string): Promise<unknown>;
  startRun(body: { platform: string; connectionId?: string; scope: string }): Promise<unknown>;
  runAction(id: string, action: 'pause' | 'resume' | 'cancel' | 'recheck-unknowns'): Promise<unknown>;
  deleteConnection(id: string): Promise<void>;
  previewFile(file: File): Promise<unknown>;
  previewSchedule(when: { cron: string } | { preset: Record<string, unknown> }, timezone: string): Promise<unknown>;
  listSchedules(): Promise<unknown>;
}
interface DashboardFormat {
  formatRelative(value: string | number, now?: number): string;
}
type Route = { page: string; id?: string; hash?: string; query?: URLSearchParams };
interface DashboardRouter {
  parseHash(hash: string): Route;
  runHref(id: string): string;
}

const dashboardSrc = join(__dirname, '..', '..', 'webhooks-in', 'dashboard', 'src');
const api = require(join(dashboardSrc, 'api.ts')) as DashboardApi;
const router = require(join(dashboardSrc, 'router.ts')) as DashboardRouter;
const format = require(join(dashboardSrc, 'format.ts')) as DashboardFormat;

interface Call {
  url: string;
  init: RequestInit;
}

describe('the dashboard client', () => {
  const realFetch = global.fetch;
  let calls: Call[];
  let answer: () => Response;
  let unauthorized: number;

  beforeEach(() => {
    calls = [];
    unauthorized = 0;
    answer = () => new Response(JSON.stringify({ runs: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
    global.fetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return answer();
    }) as typeof fetch;
    api.setUnauthorizedHandler(() => unauthorized++);
  });
  afterAll(() => {
    global.fetch = realFetch;
  });

  const headers = (call: Call) => call.init.headers as Record<string, string>;

  it('sends the session cookie and no CSRF header on reads', async () => {
    await expect(api.listRuns(20)).resolves.toEqual({ runs: [] });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe('/api/runs?limit=20');
    expect(calls[0]!.init.method).toBe('GET');
    expect(calls[0]!.init.credentials).toBe('same-origin');
    expect(headers(calls[0]!)['X-VerifyHub-CSRF']).toBeUndefined();
  });

  it('sends X-VerifyHub-CSRF: 1 and a JSON body on every unsafe request', async () => {
    answer = () => new Response(null, { status: 204 });
    await api.startRun({ platform: 'hubspot', connectionId: 'c1', scope: 'all' });
    await api.runAction('run_1', 'pause');
    await api.deleteConnection('hub spot/1');
    await api.signOut();
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'POST /api/runs',
      'POST /api/runs/run_1/pause',
      'DELETE /api/connections/hub%20spot%2F1',
      'DELETE /api/session',
    ]);
    for (const call of calls) {
      expect(headers(call)['X-VerifyHub-CSRF']).toBe('1');
      expect(call.init.credentials).toBe('same-origin');
    }
    expect(headers(calls[0]!)['Content-Type']).toBe('application/json');
    expect(JSON.parse(calls[0]!.init.body as string)).toEqual({ platform: 'hubspot', connectionId: 'c1', scope: 'all' });
  });

  it('uploads a file as multipart form data, leaving the boundary to the browser', async () => {
    answer = () => new Response(JSON.stringify({ upload: { id: 'u1' } }), { status: 201, headers: { 'content-type': 'application/json' } });
    const file = new File(['email\na@example.com\n'], 'list.csv', { type: 'text/csv' });
    await api.previewFile(file);
    const [call] = calls;
    expect(call!.url).toBe('/api/files/preview');
    expect(call!.init.body).toBeInstanceOf(FormData);
    expect((call!.init.body as FormData).get('file')).toBeInstanceOf(File);
    expect(headers(call!)['Content-Type']).toBeUndefined();
    expect(headers(call!)['X-VerifyHub-CSRF']).toBe('1');
  });

  it('turns an {error, code, field} answer into an ApiError', async () => {
    answer = () =>
      new Response(JSON.stringify({ error: 'cron: not a pattern', code: 'INVALID_INPUT', field: 'cron' }), { status: 400, headers: { 'content-type': 'application/json' } });
    const error = await api.previewSchedule({ cron: 'nope' }, 'UTC').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(api.ApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_INPUT', field: 'cron', message: 'cron: not a pattern' });
    expect(calls[0]!.url).toBe('/api/schedules/preview?cron=nope&timezone=UTC');
    expect(unauthorized).toBe(0);
  });

  it('asks for a preset\'s preview by its parts', async () => {
    answer = () => new Response(JSON.stringify({ description: 'Every Monday at 09:00', cron: '0 9 * * 1', next: [] }), { status: 200, headers: { 'content-type': 'application/json' } });
    await api.previewSchedule({ preset: { every: 'week', weekday: 1, time: '09:00' } }, 'Europe/Paris');
    expect(calls[0]!.url).toBe('/api/schedules/preview?every=week&weekday=1&time=09%3A00&timezone=Europe%2FParis');
  });

  it('a 401 sends the app to the sign-in page, except for the sign-in itself', async () => {
    answer = () => new Response(JSON.stringify({ error: 'invalid token', code: 'UNAUTHORIZED' }), { status: 401, headers: { 'content-type': 'application/json' } });
    await expect(api.getRun('run_1')).rejects.toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(unauthorized).toBe(1);
    await expect(api.signIn('wrong')).rejects.toMatchObject({ status: 401 });
    await expect(api.hasSession()).resolves.toBe(false);
    expect(unauthorized).toBe(1);
    expect(JSON.parse(calls[1]!.init.body as string)).toEqual({ token: 'wrong' });
  });

  it('a hub that cannot be reached, or answers without JSON, still gives a message to show', async () => {
    global.fetch = (async () => {
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    await expect(api.listSchedules()).rejects.toMatchObject({ status: 0, code: 'NETWORK' });
    global.fetch = (async () => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })) as typeof fetch;
    await expect(api.listSchedules()).rejects.toMatchObject({ status: 502, code: 'HTTP_502', message: 'The hub answered 502 Bad Gateway' });
  });

  it('reads the hash routes', () => {
    expect(router.parseHash('')).toEqual({ page: 'runs' });
    expect(router.parseHash('#/runs')).toEqual({ page: 'runs' });
    expect(router.parseHash('#/runs/run_abc_123')).toEqual({ page: 'run', id: 'run_abc_123' });
    expect(router.parseHash(router.runHref('run a/b'))).toEqual({ page: 'run', id: 'run a/b' });
    expect(router.parseHash('#/files')).toEqual({ page: 'files' });
    expect(router.parseHash('#/check')).toEqual({ page: 'check' });
    expect(router.parseHash('#/schedules')).toEqual({ page: 'schedules' });
    const connections = router.parseHash('#/connections?connected=hubspot-1');
    expect(connections.page).toBe('connections');
    expect(connections.query?.get('connected')).toBe('hubspot-1');
    expect(router.parseHash('#/nowhere')).toEqual({ page: 'not-found', hash: '#/nowhere' });
  });

  it('says relative times by the calendar: Monday 03:00 seen on Saturday evening is in 2 days, not tomorrow', () => {
    // Local times: the browser's zone is the machine's here, as it is the user's in a browser.
    const saturdayEvening = new Date(2026, 10, 21, 20, 50).getTime();
    const at = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute).getTime();
    const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    expect(format.formatRelative(at(23, 3), saturdayEvening)).toBe(relative.format(2, 'day'));
    expect(format.formatRelative(at(22, 23, 30), saturdayEvening)).toBe(relative.format(1, 'day'));
    expect(format.formatRelative(at(20, 9), saturdayEvening)).toBe(relative.format(-1, 'day'));
    expect(format.formatRelative(at(21, 23, 50), saturdayEvening)).toBe(relative.format(3, 'hour'));
    expect(format.formatRelative(saturdayEvening - 130_000, saturdayEvening)).toBe(relative.format(-2, 'minute'));
  });
});
