import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { FakeEngine } from '../fakes/engine';
import { FakePipedrive } from '../fakes/pipedrive/fake-pipedrive';
import { cliBin } from '../setup/cli-bin';
import { purgeServeRedis, until } from '../webhooks-in/serve-stack';

const PERSONS = 25_000;
const ADMIN = `admin-${randomUUID()}`;
const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

/** The parts of the hub's answers this suite reads (a run, a connection, a disconnect). */
interface HubAnswer {
  id: string;
  status: string;
  statusReason?: string;
  counters: Record<string, number>;
  connection: { id: string };
  platformDeleted: string[];
}

interface Proc {
  child: ChildProcess;
  exited: Promise<unknown>;
}

/** `verify-hub <args>` as a process of its own (the built CLI), stderr kept for a failure's message. */
function cli(args: string[], env: Record<string, string | undefined>): Proc & { stderr: () => string } {
  let stderr = '';
  const child = spawn(process.execPath, [cliBin(env), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return { child, exited: new Promise((resolve) => child.on('exit', resolve)), stderr: () => stderr };
}

/**
 * Issue 33's acceptance for Pipedrive, against its fake, through `verify-hub serve --no-workers` and
 * `verify-hub worker` processes: connect (fields and webhooks set up), a sync of 25,000 persons with a
 * worker killed (-9) and restarted mid-run writing every verdict exactly once and buying each address
 * once (engine bill == credits), an unchanged re-sync writing nothing, a person added in Pipedrive
 * verified within 2 s of its webhook, a revoked token pausing the run with words to reconnect, and
 * disconnect removing the webhooks the hub registered. No `marketing_status` is ever sent.
 */
describe('Pipedrive acceptance (serve and worker processes)', () => {
  let fake: FakePipedrive;
  let engine: FakeEngine;
  let serve: ReturnType<typeof cli>;
  let hubUrl = '';
  const workers: ReturnType<typeof cli>[] = [];
  const prefix = `test-pd-accept-${randomUUID().slice(0, 8)}`;
  let env: Record<string, string | undefined>;
  const connectionId = () => `pipedrive-${fake.companyId}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${hubUrl}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: answer.status, body: (await answer.json()) as HubAnswer };
  };
  const run = async (id: string) => (await api('GET', `/api/runs/${id}`)).body;
  const settled = (id: string, timeoutMs: number) => until(() => run(id), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), timeoutMs);
  const startRun = async () => {
    const started = await api('POST', '/api/runs', { platform: 'pipedrive', connectionId: connectionId(), scope: 'all' });
    expect(started.status).toBe(201);
    return started.body.id;
  };
  const riskOf = (personId: number) => {
    const field = fake.field('EV risk')!;
    return field.options!.find((o) => o.id === fake.persons.get(personId)!.custom_fields[field.field_code])?.label;
  };
  const startWorker = () => {
    const worker = cli(['worker', '--concurrency', '3'], env);
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    // A 2-second allowance above any plan's (480 for OAuth Enterprise), so 25,000 PATCHes fit in a
    // test: the connector paces itself to whatever `x-ratelimit-limit` the company answers.
    fake = await new FakePipedrive({ burstLimit: 4_000, deliverOwnChanges: false }).start();
    fake.seed(PERSONS, (i) => (i % 50 === 0 ? [`user${i}@acme${i % 30}.example.com`, `home${i}@mail${i % 7}.example.org`] : [`${i % 9 === 4 ? 'invalid' : 'user'}${i}@acme${i % 30}.example.com`]));
    engine = new FakeEngine();
    await engine.start();
    env = {
      REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_SECRET_KEY: 's'.repeat(40), HUB_ADMIN_TOKEN: ADMIN,
      VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'warn', PIPEDRIVE_API_BASE: fake.url, VERIFY_HUB_EVENT_COALESCE_MS: '100',
      // The killed worker's chunks go to the other after about 8 + 3 s instead of BullMQ's 30 + 30.
      VERIFY_HUB_JOB_LOCK_MS: '8000', VERIFY_HUB_STALLED_INTERVAL_MS: '3000',
    };
    serve = cli(['serve', '--port', '0', '--host', '127.0.0.1', '--no-workers'], env);
    await until(async () => /open (http:\/\/\S+?)\/?\s/.exec(serve.stderr()), (m) => Boolean(m), 60_000);
    hubUrl = /open (http:\/\/\S+?)\/?\s/.exec(serve.stderr())![1]!.replace('localhost', '127.0.0.1');
    startWorker();
    startWorker();
  }, 120_000);

  afterAll(async () => {
    for (const proc of [serve, ...workers]) {
      proc?.child.kill('SIGTERM');
      await proc?.exited;
    }
    await fake?.stop();
    await engine?.stop();
    await purgeServeRedis(prefix);
  }, 60_000);

  it('connects with the API token: the person fields made, webhooks v2 registered with basic auth', async () => {
    const connected = await api('POST', '/api/connections/pipedrive', { apiToken: fake.apiToken });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: connectionId() });
    expect(fake.fields.filter((f) => f.is_custom_field).map((f) => f.field_name)).toEqual(['EV risk', 'EV score', 'EV reason', 'EV checked at']);
    expect(fake.webhooks.map((h) => `${h.event_action}.${h.event_object}@${h.version}`)).toEqual(['create.person@2.0', 'change.person@2.0']);
    expect(fake.webhooks.every((h) => h.subscription_url === `${hubUrl}/webhooks/pipedrive` && h.http_auth_user === connectionId())).toBe(true);
  });

  it('syncs 25,000 persons with a worker killed -9 mid-run: every verdict written exactly once, nothing bought twice', async () => {
    const id = await startRun();
    await until(async () => fake.writesPerPerson.size, (n) => n >= PERSONS / 5, 120_000);
    const victim = workers.find((w) => w.child.exitCode === null)!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    startWorker();
    const done = await settled(id, 240_000);
    expect(done).toMatchObject({ status: 'completed', counters: { failed: 0 } });
    // A chunk the killed worker had half written is read again before its replay: what it wrote counts as unchanged.
    const secondaries = [...fake.persons.values()].filter((p) => p.emails.length > 1).length;
    expect(done.counters.written + done.counters.unchanged).toBe(PERSONS + secondaries);
    expect(done.counters.written).toBeGreaterThan(PERSONS / 2);
    expect(fake.writesPerPerson.size).toBe(PERSONS);
    expect([...fake.writesPerPerson.values()].filter((n) => n !== 1)).toEqual([]);
    for (const personId of [1, 5, 51, PERSONS]) expect(riskOf(personId)).toBe(fake.persons.get(personId)!.emails[0]!.value.startsWith('invalid') ? 'invalid' : 'safe');
    // Each address bought once (a secondary address is verified too), and the run's credits are the bill.
    expect([...engine.billedPer.values()].filter((n) => n > 1)).toEqual([]);
    expect(done.counters.credits).toBe(engine.billed);
    expect(fake.marketingStatusWrites).toEqual([]);
    // 500 a page: 50 page reads for 25,000 persons (and a few re-reads by ids of the killed worker's chunks).
    expect(fake.pageReads()).toBeGreaterThanOrEqual(PERSONS / 500);
    expect(fake.pageReads()).toBeLessThanOrEqual(PERSONS / 500 + 3);
    expect(fake.limits.refused.daily).toBe(0);
  }, 300_000);

  it('an unchanged re-sync writes nothing', async () => {
    const patches = fake.callsTo('PATCH', '/api/v2/persons/');
    const done = await settled(await startRun(), 180_000);
    expect(done).toMatchObject({ status: 'completed', counters: { written: 0, failed: 0 } });
    expect(fake.callsTo('PATCH', '/api/v2/persons/')).toBe(patches);
  }, 200_000);

  it('a person added in Pipedrive is verified and written within 2 s of its webhook', async () => {
    const added = fake.addPerson(['invalid.newcomer@example.com']);
    const sent = Date.now();
    await until(async () => riskOf(added.id), (risk) => risk === 'invalid', 10_000);
    const took = Date.now() - sent;
    expect(took).toBeLessThan(2_000);
    expect(fake.deliveries.filter((d) => d.personId === added.id).map((d) => d.status)).toEqual([200]);
  }, 30_000);

  it('a revoked token pauses the run with words that say to reconnect', async () => {
    fake.revokeToken();
    const done = await settled(await startRun(), 60_000);
    expect(done.status).toBe('paused');
    expect(done.statusReason).toMatch(/Pipedrive refused the credentials.*reconnect Pipedrive/);
  }, 90_000);

  it('reconnected, then disconnected: the webhooks the hub registered are removed', async () => {
    const again = await api('POST', '/api/connections/pipedrive', { apiToken: fake.apiToken });
    expect(again.status).toBe(201);
    expect(fake.webhooks).toHaveLength(2);
    const removed = await api('DELETE', `/api/connections/${connectionId()}`);
    expect(removed.status).toBe(200);
    expect(removed.body.platformDeleted).toEqual(['2 Pipedrive webhooks']);
    expect(fake.webhooks).toEqual([]);
    expect(fake.marketingStatusWrites).toEqual([]);
  }, 60_000);
});
