import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { PERMISSION_SET } from '@verify-hub/connector-salesforce';
import { startServe, type RunningHub } from '../../cli/src/commands/serve';
import { loadHubConfig } from '../../cli/src/platforms';
import { FakeEngine } from '../fakes/engine';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import { cliBin } from '../setup/cli-bin';
import { purgeServeRedis, until } from '../webhooks-in/serve-stack';
import { silentLogger } from '../webhooks-in/harness';
import { fakeVariables } from './helpers';

const ADMIN = `admin-${randomUUID()}`;
const auth = { Authorization: `Bearer ${ADMIN}` };
const RECORDS = 25_000;
/** Crossed by each object (12,500 records): 2,000 by REST, the rest by a Bulk API 2.0 query job. */
const BULK_THRESHOLD = 10_000;

/**
 * Mostly safe; some invalid and risky (the fake engine reads the first word), and some addresses that
 * repeat the one two records before: the same object (Contacts and Leads alternate), the same page,
 * one purchase for both.
 */
const addressOf = (i: number) => {
  const j = i % 50 === 2 ? i - 2 : i;
  return `${j % 10 === 9 ? 'invalid.' : j % 7 === 3 ? 'risky.' : ''}person${j}@example${j % 30}.com`;
};

/**
 * Issue 33's Salesforce acceptance, against the fake org through `verify-hub serve` (HTTP, no workers)
 * and `verify-hub worker` processes: connect (OAuth web-server flow with PKCE), setup (fields and their
 * permission set), a sync of 25,000 Contacts and Leads crossing the Bulk threshold with a worker killed
 * (-9) mid-run and restarted, every verdict written exactly once and nothing bought twice (the engine's
 * bill is the run's credits), an unchanged re-sync writing nothing, a revoked sign-in pausing the run
 * with reconnect words, and disconnect revoking the hub's refresh token. No consent changed anywhere.
 */
describe('Salesforce acceptance: serve + workers against the fake org', () => {
  let fake: FakeSalesforce;
  let engine: FakeEngine;
  let hub: RunningHub;
  let env: Record<string, string | undefined>;
  const workers = new Set<ChildProcess>();
  const prefix = `test-sf-accept-${randomUUID().slice(0, 8)}`;
  let connectionId = '';

  const spawnWorker = async () => {
    const worker = spawn(process.execPath, [cliBin(env), 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    worker.stderr!.on('data', (d) => (stderr += String(d)));
    workers.add(worker);
    worker.on('exit', () => workers.delete(worker));
    await until(async () => stderr, (text) => text.includes('worker started'), 90_000);
    return worker;
  };
  const killHard = async (worker: ChildProcess) => {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.kill('SIGKILL');
    await exited;
  };
  const run = (id: string) => request(hub.url).get(`/api/runs/${id}`).set(auth).then((r) => r.body);
  const settled = (id: string) => until(() => run(id), (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status), 150_000);
  const startRun = async () => {
    const started = await request(hub.url).post('/api/runs').set(auth).send({ platform: 'salesforce', connectionId, scope: 'all' });
    expect(started.status).toBe(201);
    return started.body.id as string;
  };

  beforeAll(async () => {
    fake = await new FakeSalesforce().start();
    for (let i = 0; i < RECORDS; i++) fake.add(i % 2 ? 'Lead' : 'Contact', addressOf(i));
    engine = new FakeEngine();
    await engine.start();
    env = { REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_SECRET_KEY: 's'.repeat(40), VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent', ...fakeVariables(fake) };
    hub = await startServe(loadHubConfig({ ...env, HUB_ADMIN_TOKEN: ADMIN }), { port: 0, host: '127.0.0.1', workers: false, logger: silentLogger });
    await Promise.all([spawnWorker(), spawnWorker()]);
  }, 150_000);
  afterAll(async () => {
    await Promise.all([...workers].map(killHard));
    await hub?.close();
    await purgeServeRedis(prefix);
    await engine?.stop();
    await fake?.stop();
  }, 60_000);

  it('connects through the OAuth web-server flow with PKCE, and setup creates the fields and their permission set', async () => {
    const start = await request(hub.url).get('/api/oauth/salesforce/start?environment=production').set(auth);
    expect(start.status).toBe(302);
    const callback = new URL(fake.approve(start.headers.location!));
    const back = await request(hub.url).get(callback.pathname + callback.search);
    connectionId = /connected=([^&]+)/.exec(back.headers.location ?? '')?.[1] ?? '';
    expect(connectionId).toBe(`salesforce-${fake.orgId}`);
    // The user's choice of threshold (`verify-hub salesforce connect --bulk-query-threshold`), so 25,000 records cross it.
    const stored = (await hub.pipeline.connections!.get(connectionId))!;
    await hub.pipeline.connections!.save({ ...stored, settings: { ...stored.settings, bulkQueryThreshold: BULK_THRESHOLD } });
    const setup = await request(hub.url).post(`/api/connections/${connectionId}/ensure-schema`).set(auth);
    expect(setup.status).toBe(200);
    expect(setup.body.problems).toEqual([]);
    expect(setup.body.created).toEqual(expect.arrayContaining(['field Contact.EV_Risk__c', 'field Lead.EV_Score__c', expect.stringMatching(/^permission set Verify_Hub_Fields/)]));
    expect(fake.customFields.size).toBe(18);
    expect(fake.assignments.has(PERMISSION_SET.name)).toBe(true);
  });

  it('syncs 25,000 Contacts and Leads across the Bulk threshold with a worker killed mid-run: each verdict written once, nothing bought twice', async () => {
    const id = await startRun();
    // kill -9 one worker once the run is writing, and start another.
    await until(() => run(id), (r) => (r.counters?.written ?? 0) >= 2_000 || r.status !== 'running', 150_000);
    await killHard([...workers][0]!);
    await spawnWorker();
    const done = await settled(id);
    expect(done).toMatchObject({ status: 'completed', counters: { pulled: RECORDS, failed: 0 } });
    const writes = [...fake.records.values()].filter((r) => r.type !== 'Account').map((r) => fake.writesPerRecord.get(r.Id) ?? 0);
    expect({ lost: writes.filter((n) => n === 0).length, twice: writes.filter((n) => n > 1).length }).toEqual({ lost: 0, twice: 0 });
    for (const record of fake.records.values()) {
      const email = String(record.Email);
      expect(record.EV_Risk__c).toBe(email.startsWith('invalid.') ? 'invalid' : email.startsWith('risky.') ? 'risky' : 'safe');
    }
    // Both ways of reading and both ways of writing were used.
    expect(fake.bulk.queryJobs.size).toBe(2);
    expect(fake.bulk.ingestSizes.length).toBeGreaterThan(0);
    expect(fake.collectionSizes.length).toBeGreaterThan(0);
    expect(Math.max(...fake.collectionSizes)).toBeLessThanOrEqual(200);
    // Every purchase once: the engine's bill is the run's credits.
    expect([...engine.billedPer.values()].filter((n) => n > 1)).toEqual([]);
    expect(done.counters.credits).toBe(engine.billed);
    expect([...fake.versions]).toEqual(['62.0']);
    expect(fake.consentChanges).toEqual([]);
  }, 200_000);

  it('an unchanged re-sync writes nothing', async () => {
    const [collections, ingests] = [fake.collectionSizes.length, fake.bulk.ingestSizes.length];
    const done = await settled(await startRun());
    expect(done).toMatchObject({ status: 'completed', counters: { pulled: RECORDS, written: 0, unchanged: RECORDS } });
    expect([fake.collectionSizes.length, fake.bulk.ingestSizes.length]).toEqual([collections, ingests]);
  }, 200_000);

  it('a revoked sign-in pauses the run with words that say how to reconnect', async () => {
    fake.revokeAccess();
    const done = await settled(await startRun());
    expect(done.status).toBe('paused');
    expect(done.statusReason).toMatch(/refresh token revoked or expired/);
    expect(done.statusReason).toMatch(/reconnect Salesforce \(Connections in the dashboard/);
  }, 200_000);

  it("disconnect revokes the hub's refresh token and deletes the stored connection", async () => {
    const revokes = fake.callsTo(/\/services\/oauth2\/revoke$/).length;
    const res = await request(hub.url).delete(`/api/connections/${connectionId}`).set(auth);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toMatch(/refresh token \(revoked\)/);
    expect(fake.callsTo(/\/services\/oauth2\/revoke$/).length).toBe(revokes + 1);
    expect(await hub.pipeline.connections!.get(connectionId)).toBeUndefined();
    expect(fake.consentChanges).toEqual([]);
  });
});
