import { createHash, randomUUID } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Command } from 'commander';
import { EngineClient, type Verification } from '@verify-hub/core';
import { actionCompletion, verifyActionDefinition } from '@verify-hub/connector-hubspot';
import { ActionCompletions, Keys, RedisVerificationCache, createRedis, type Redis } from '@verify-hub/sync-jobs';
import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import { registerPlatformCommands } from '../../cli/src/platform-commands';

/** The platform module's commands, as `verify-hub` adds them. */
const register = (program: Command) => registerPlatformCommands(program, hubspotPlatform);
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { actionCallBody, signedActionCall, startActionHub } from './action-harness';
import { FakeEngine } from '../fakes/engine';
import { until } from '../setup/until';
import { connector, verification } from './helpers';
import { TS_CHILD_ARGS } from '../setup/ts-child';

/**
 * The "Verify email address" workflow action end to end: HubSpot's signed call at the hub's
 * /actions/hubspot (signature computed here with node:crypto, as HubSpot documents v3), answers from
 * the cache, or BLOCK and one completion through the fake's callbacks API after the fake engine answered.
 */
const SECRET = `app-secret-${randomUUID()}`;
const PORTAL = '62515';
const TOKEN = `portal-token-${randomUUID()}`;

const hubspot = new FakeHubSpot();
const engine = new FakeEngine({ extensions: true });
let redis: Redis;
let prefix: string;
let cache: RedisVerificationCache;
let completions: ActionCompletions;
let hub: { url: string; close: () => Promise<void> };
let hubUrl: string;
const opened: ActionCompletions[] = [];

function completionsLane(): ActionCompletions {
  const lane = new ActionCompletions({
    redis, prefix, cache, backoffMs: 20,
    complete: (job, result) => connector(hubspot, PORTAL, TOKEN).completeAction(job.callbackId, actionCompletion(result)),
  });
  opened.push(lane);
  return lane;
}

beforeAll(async () => {
  await hubspot.start();
  hubspot.addPortal({ portalId: PORTAL, token: TOKEN });
  await engine.start();
  redis = createRedis(process.env.REDIS_URL!);
  prefix = `vh-action-${randomUUID().slice(0, 8)}`;
  cache = new RedisVerificationCache(redis, new Keys(prefix));
  completions = completionsLane();
  hub = await startActionHub(SECRET, () => completions);
  hubUrl = hub.url;
});

afterAll(async () => {
  await Promise.all(opened.map((lane) => lane.close()));
  await hub.close();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
  await engine.stop();
  await hubspot.stop();
});

function callBody(email: string, callbackId = hubspot.actions.issueCallback(PORTAL)) {
  return actionCallBody(PORTAL, email, callbackId);
}

async function call(body: string, opts: { secret?: string; timestamp?: number } = {}) {
  return signedActionCall(hubUrl, opts.secret ?? SECRET, body, opts.timestamp);
}

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.com`;

describe('POST /actions/hubspot: the signature', () => {
  it('refuses a wrong secret and a stale timestamp with 401 saying why, and a bad body with 400 naming the field', async () => {
    const email = address('sig');
    const bad = await call(callBody(email), { secret: 'not-the-secret' });
    expect(bad).toEqual({ status: 401, body: expect.objectContaining({ error: 'X-HubSpot-Signature-v3: does not match' }) });
    const stale = await call(callBody(email), { timestamp: Date.now() - 6 * 60_000 });
    expect(stale.status).toBe(401);
    expect(stale.body.error).toMatch(/X-HubSpot-Request-Timestamp: older than 5 minutes/);
    const noCallback = await call(JSON.stringify({ origin: { portalId: 1 }, inputFields: { email } }));
    expect(noCallback.status).toBe(400);
    expect(noCallback.body.error).toMatch(/^body\.callbackId: /);
    // Nothing was queued or bought for refused calls.
    expect(engine.callsFor(email)).toBe(0);
    expect(await completions.queue.getJobCounts('waiting', 'delayed', 'active')).toEqual({ waiting: 0, delayed: 0, active: 0 });
  });
});

describe('POST /actions/hubspot: the v2 signature HubSpot documents for workflow actions', () => {
  it('accepts a v2-signed call and refuses a v2 signature over another body', async () => {
    const email = address('v2');
    await cache.setMany([verification(email, { checkedAt: new Date().toISOString() })]);
    const url = `${hubUrl}/actions/hubspot`;
    const send = (body: string, signedBody = body) =>
      fetch(url, {
        method: 'POST', body,
        headers: { 'content-type': 'application/json', 'x-hubspot-signature-version': 'v2', 'x-hubspot-signature': createHash('sha256').update(`${SECRET}POST${url}${signedBody}`, 'utf8').digest('hex') },
      });
    const body = callBody(email);
    const ok = await send(body);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { outputFields: Record<string, string> }).outputFields.risk).toBe('safe');
    const forged = await send(body, callBody(email));
    expect(forged.status).toBe(401);
  });
});

describe('answered at once from the cache', () => {
  it('maps the cached result to the output fields; a check not made is "unknown", never "false"', async () => {
    const email = address('cached');
    const cached: Verification = verification(email, {
      risk: 'risky', score: 55, reason: 'catch_all',
      checks: { syntax: true, mx: true, smtp: null, smtpCheck: 'catch_all', disposable: false, roleAccount: null, catchAll: true, freeProvider: false, spamTrapRisk: 'none' },
      checkedAt: new Date().toISOString(),
    });
    await cache.setMany([cached]);
    const answer = await call(callBody(email));
    expect(answer.status).toBe(200);
    expect(answer.body.outputFields).toEqual({
      risk: 'risky', score: '55', reason: 'catch_all', did_you_mean: '',
      is_disposable: 'false', is_role_account: 'unknown', is_catch_all: 'true', is_free_provider: 'false',
    });
    expect(engine.callsFor(email)).toBe(0);
  });

  it('a contact without an address is risk unknown at once; a malformed one is invalid at once; neither reaches the engine', async () => {
    const empty = await call(callBody(''));
    expect(empty.body.outputFields).toEqual(expect.objectContaining({ risk: 'unknown', reason: 'no_email', is_disposable: 'unknown' }));
    const malformed = await call(callBody('two@@example.com'));
    expect(malformed.body.outputFields).toEqual(expect.objectContaining({ risk: 'invalid', score: '0' }));
    expect(engine.callsFor('')).toBe(0);
    expect(engine.callsFor('two@@example.com')).toBe(0);
  });
});

describe('a worker killed mid-verification', () => {
  const ROOT = join(__dirname, '..', '..');
  const startWorkerProcess = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [...TS_CHILD_ARGS, join(__dirname, 'fixtures', 'action-worker.ts')], {
      cwd: ROOT,
      env: {
        ...process.env, ACTION_PREFIX: prefix, ACTION_PORTAL: PORTAL, ACTION_TOKEN: TOKEN,
        ACTION_HUBSPOT_URL: hubspot.url, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => out.includes('ready'), 60_000, 'the worker process to start');
    return child;
  };

  // Before any in-process worker starts (the next tests start one), so only the worker processes run the job.
  it('is taken over by a restarted worker: the callback is completed exactly once', async () => {
    const email = address('crash');
    // Slow enough that the kill lands while the engine is still answering.
    engine.script(email, { kind: 'result', risk: 'safe', score: 88, reason: 'deliverable', latencyMs: 4000 }, { kind: 'result', risk: 'safe', score: 88, reason: 'deliverable' });
    const callbackId = hubspot.actions.issueCallback(PORTAL);
    expect((await call(callBody(email, callbackId))).body.outputFields?.hs_execution_state).toBe('BLOCK');
    const first = await startWorkerProcess();
    await until(() => engine.callsFor(email) === 1, 30_000, 'the engine to be asked');
    first.kill('SIGKILL');
    await new Promise((resolve) => (first.exitCode !== null || first.signalCode !== null ? resolve(null) : first.once('exit', resolve)));
    expect(hubspot.actions.completions.filter((c) => c.callbackId === callbackId)).toHaveLength(0);
    const second = await startWorkerProcess();
    try {
      await until(() => hubspot.actions.completions.some((c) => c.callbackId === callbackId), 30_000, 'the callback after the restart');
      await until(async () => (await completions.queue.getJob(`hubspot-${callbackId}`))?.finishedOn !== undefined, 15_000, 'the job to finish');
    } finally {
      second.kill('SIGKILL');
    }
    const done = hubspot.actions.completions.filter((c) => c.callbackId === callbackId);
    expect(done).toHaveLength(1);
    expect(done[0]!.outputFields).toEqual(expect.objectContaining({ risk: 'safe', score: '88', reason: 'deliverable' }));
    expect(engine.callsFor(email)).toBe(2);
  }, 120_000);
});

describe('blocked, then completed through the callback', () => {
  it('answers BLOCK; a worker started later completes exactly once with the engine\'s result', async () => {
    const email = address('miss');
    engine.script(email, { kind: 'result', risk: 'invalid', score: 3, reason: 'mailbox_not_found', flags: { disposable: false, roleAccount: false, catchAll: false, freeProvider: false } });
    const callbackId = hubspot.actions.issueCallback(PORTAL);
    const first = await call(callBody(email, callbackId));
    expect(first.body.outputFields).toEqual({ hs_execution_state: 'BLOCK', hs_expiration_duration: 'P1D' });
    // HubSpot retrying the same call before any worker ran: still one job.
    await call(callBody(email, callbackId));
    expect(await completions.queue.getJobCounts('waiting')).toEqual({ waiting: 1 });

    const worker = completionsLane();
    worker.start(new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 }));
    await until(() => hubspot.actions.completions.some((c) => c.callbackId === callbackId), 15_000, 'the callback');
    await until(async () => (await worker.queue.getJobCounts('completed')).completed >= 1, 15_000, 'the job to finish');
    expect(hubspot.actions.completions.filter((c) => c.callbackId === callbackId)).toEqual([
      {
        callbackId, portalId: PORTAL, batchOf: 1,
        outputFields: { risk: 'invalid', score: '3', reason: 'mailbox_not_found', did_you_mean: '', is_disposable: 'false', is_role_account: 'false', is_catch_all: 'false', is_free_provider: 'false' },
        // typedOutputs beside them, as the published CallbackCompletionRequest requires: the score a number.
        typedOutputs: { risk: 'invalid', score: 3, reason: 'mailbox_not_found', did_you_mean: '', is_disposable: 'false', is_role_account: 'false', is_catch_all: 'false', is_free_provider: 'false' },
      },
    ]);
    expect(engine.callsFor(email)).toBe(1);
    // The result is now cached: the next enrolment of the same address is answered at once.
    expect((await call(callBody(email))).body.outputFields?.risk).toBe('invalid');
  });

  it('waits out the engine\'s 429 and HubSpot\'s 429, then completes once', async () => {
    const email = address('limited');
    engine.script(email, { kind: 'rate-limited', resetInMs: 300 }, { kind: 'result', risk: 'safe', score: 97, reason: 'deliverable' });
    hubspot.inject({ kind: 'rate-limit', policyName: 'TEN_SECONDLY_ROLLING', count: 1, path: /\/callbacks\// });
    const callbackId = hubspot.actions.issueCallback(PORTAL);
    expect((await call(callBody(email, callbackId))).body.outputFields?.hs_execution_state).toBe('BLOCK');
    await until(() => hubspot.actions.completions.some((c) => c.callbackId === callbackId), 15_000, 'the callback');
    const done = hubspot.actions.completions.filter((c) => c.callbackId === callbackId);
    expect(done).toHaveLength(1);
    expect(done[0]!.outputFields.risk).toBe('safe');
    expect(engine.callsFor(email)).toBe(2);
    expect(hubspot.callsTo(/\/callbacks\//).map((c) => c.status)).toEqual(expect.arrayContaining([429, 204]));
  });

  it('a callback HubSpot refuses (4xx) is not retried: the job fails after one attempt', async () => {
    const email = address('refused');
    const callbackId = `never-issued-${randomUUID().slice(0, 8)}`;
    expect((await call(callBody(email, callbackId))).body.outputFields?.hs_execution_state).toBe('BLOCK');
    await until(async () => (await completions.queue.getJob(`hubspot-${callbackId}`))?.failedReason !== undefined, 15_000, 'the job to fail');
    const job = await completions.queue.getJob(`hubspot-${callbackId}`);
    expect(job!.failedReason).toMatch(/No pending callback/);
    expect(job!.attemptsMade).toBe(1);
    expect(hubspot.callsTo(new RegExp(`/callbacks/${callbackId}/complete`))).toHaveLength(1);
  });

  it('an engine quota beyond the action\'s deadline completes with risk unknown, not an error', async () => {
    const email = address('quota');
    engine.script(email, { kind: 'quota', resetInMs: 3 * 86_400_000 });
    const callbackId = hubspot.actions.issueCallback(PORTAL);
    expect((await call(callBody(email, callbackId))).body.outputFields?.hs_execution_state).toBe('BLOCK');
    await until(() => hubspot.actions.completions.some((c) => c.callbackId === callbackId), 15_000, 'the callback');
    expect(hubspot.actions.completions.find((c) => c.callbackId === callbackId)!.outputFields).toEqual(expect.objectContaining({
      risk: 'unknown', reason: 'engine_quota_exceeded', is_disposable: 'unknown', is_catch_all: 'unknown',
    }));
    // Unknown is never cached: a later enrolment asks the engine again.
    expect((await call(callBody(email))).body.outputFields?.hs_execution_state).toBe('BLOCK');
  });
});

describe('verify-hub hubspot actions', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const run = async (...args: string[]) => {
    const program = new Command('verify-hub').exitOverride();
    register(program);
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void lines.push(parts.join(' ')));
    try {
      await program.parseAsync(['node', 'verify-hub', ...args]);
    } finally {
      log.mockRestore();
    }
    return lines;
  };

  it('publishes the definition with a developer OAuth token (never hapikey), lists it and deletes it; the body passes the published schema', async () => {
    process.env.HUBSPOT_API_BASE = hubspot.url;
    process.env.HUBSPOT_DEVELOPER_TOKEN = hubspot.actions.developerAccessToken;
    process.env.HUBSPOT_APP_ID = '424242';
    process.env.HUB_PUBLIC_URL = 'https://hub.example.com/';
    hubspot.resetCalls();
    const published = await run('hubspot', 'actions', 'publish');
    const [stored] = [...hubspot.actions.definitions.values()];
    expect(published).toEqual([`published "Verify email address" as action ${stored!.id} (app 424242), calling https://hub.example.com/actions/hubspot`]);
    expect(stored).toEqual(expect.objectContaining({ ...JSON.parse(JSON.stringify(verifyActionDefinition('https://hub.example.com/actions/hubspot'))), appId: '424242' }));
    expect(await run('hubspot', 'actions', 'list')).toEqual([`${stored!.id}\tpublished\tVerify email address\thttps://hub.example.com/actions/hubspot`]);
    expect(await run('hubspot', 'actions', 'delete', stored!.id)).toEqual([`deleted action ${stored!.id} from app 424242`]);
    expect(hubspot.actions.definitions.size).toBe(0);
    const calls = hubspot.callsTo(/^\/automation\/v4\/actions\/424242/);
    expect(calls.map((c) => [c.method, c.status])).toEqual([['POST', 201], ['GET', 200], ['DELETE', 204]]);
    expect(calls.every((c) => !c.query.includes('hapikey'))).toBe(true);
  });

  it('names the missing setting; a token without developers-write is refused (403) and a developer API key is not a token (401)', async () => {
    process.env.HUBSPOT_API_BASE = hubspot.url;
    process.env.HUBSPOT_APP_ID = '424242';
    process.env.HUB_PUBLIC_URL = 'https://hub.example.com/';
    delete process.env.HUBSPOT_DEVELOPER_TOKEN;
    await expect(run('hubspot', 'actions', 'list')).rejects.toThrow(/HUBSPOT_DEVELOPER_TOKEN: is required: an OAuth access token .*developers-read and developers-write/);
    process.env.HUBSPOT_DEVELOPER_TOKEN = hubspot.actions.developerToken(['developers-read']);
    expect(await run('hubspot', 'actions', 'list')).toEqual(['no workflow actions on app 424242']);
    await expect(run('hubspot', 'actions', 'publish')).rejects.toThrow(/developers-write/);
    process.env.HUBSPOT_DEVELOPER_TOKEN = 'a-developer-api-key';
    await expect(run('hubspot', 'actions', 'list')).rejects.toThrow(/OAuth access token/);
  });

  it('the fake refuses a definition the published schema refuses, naming the field', async () => {
    const definition = JSON.parse(JSON.stringify(verifyActionDefinition('https://hub.example.com/actions/hubspot'))) as Record<string, unknown>;
    const post = (body: unknown) =>
      fetch(`${hubspot.url}/automation/v4/actions/424242`, { method: 'POST', headers: { authorization: `Bearer ${hubspot.actions.developerAccessToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const refusal = async (body: unknown) => ((await (await post(body)).json()) as { message: string }).message;
    const inputs = definition.inputFields as { typeDefinition: Record<string, unknown> }[];
    const outputs = definition.outputFields as { typeDefinition: Record<string, unknown> }[];
    // What verify-hub sent before: externalOptions on the input's type, no schema/useChirp on the outputs.
    expect(await refusal({ ...definition, inputFields: [{ ...inputs[0], typeDefinition: { ...inputs[0]!.typeDefinition, externalOptions: false } }] })).toMatch(/inputFields\.0\.typeDefinition/);
    const { schema: _s, useChirp: _u, ...bare } = outputs[0]!.typeDefinition;
    expect(await refusal({ ...definition, outputFields: [{ typeDefinition: bare }] })).toMatch(/outputFields\.0\.typeDefinition\.(schema|useChirp)/);
    const { functions: _f, ...noFunctions } = definition;
    expect(await refusal(noFunctions)).toMatch(/^Invalid input JSON: functions/);
    expect((await post(definition)).status).toBe(201);
  });
});
