import { spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { startServe } from '../../cli/src/commands/serve';
import { FakeEngine } from '../fakes/engine';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { silentLogger } from './harness';
import { purgeServeRedis, startServeStack, until, type ServeStack } from './serve-stack';
import { loadHubConfig } from '../../cli/src/platforms';
import { cliBin } from '../setup/cli-bin';

/**
 * `verify-hub serve` wired from configuration: HubSpot's signed workflow-action call at
 * POST /actions/hubspot is blocked, then completed once through the fake's callbacks API with the
 * stored connection's token and the fake engine: by the serve process's own workers, or, when the hub
 * is HTTP-only (`--no-workers`, as the container runs it), by a separate `verify-hub worker` process.
 */
const SECRET = `secret-${randomUUID()}`;
const PORTAL = '808';
const TOKEN = `token-${randomUUID()}`;
const hubspot = new FakeHubSpot();

beforeAll(async () => {
  await hubspot.start();
  hubspot.addPortal({ portalId: PORTAL, token: TOKEN });
});
afterAll(async () => {
  await hubspot.stop();
});

/** Sends a signed call for a fresh address; expects it blocked; returns the completions HubSpot receives for it. */
async function blockedCall(hubUrl: string): Promise<{ email: string; completions: () => Promise<Array<{ outputFields: Record<string, string> }>> }> {
  const callbackId = hubspot.actions.issueCallback(PORTAL);
  const email = `someone-${randomUUID().slice(0, 6)}@example.com`;
  const body = JSON.stringify({ callbackId, origin: { portalId: Number(PORTAL), actionDefinitionId: 7 }, object: { objectId: 9, objectType: 'CONTACT' }, inputFields: { email } });
  const url = `${hubUrl}/actions/hubspot`;
  const timestamp = String(Date.now());
  const res = await fetch(url, {
    method: 'POST', body,
    headers: {
      'content-type': 'application/json', 'x-hubspot-request-timestamp': timestamp,
      'x-hubspot-signature-v3': createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`, 'utf8').digest('base64'),
    },
  });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ outputFields: { hs_execution_state: 'BLOCK', hs_expiration_duration: 'P1D' } });
  return { email, completions: async () => hubspot.actions.completions.filter((c) => c.callbackId === callbackId) };
}

function expectVerdict(done: Array<{ outputFields: Record<string, string> }>): void {
  expect(done).toHaveLength(1);
  expect(done[0]!.outputFields).toEqual(expect.objectContaining({ risk: expect.stringMatching(/^(safe|risky|invalid)$/), score: expect.stringMatching(/^\d+$/) }));
}

describe('workflow action through verify-hub serve', () => {
  let stack: ServeStack;
  beforeAll(async () => {
    stack = await startServeStack('wf-action', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_SECRET: SECRET, HUBSPOT_API_BASE: hubspot.url });
    await stack.hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, TOKEN));
  });
  afterAll(async () => {
    await stack.close();
  });

  it("blocks a cache miss and completes it once with the engine's verdict", async () => {
    const call = await blockedCall(stack.hub.url);
    expectVerdict(await until(call.completions, (found) => found.length > 0));
    expect(stack.engine.callsFor(call.email)).toBe(1);
  });
});

describe('workflow action with an HTTP-only hub and a separate worker process', () => {
  it('the worker completes the action the hub blocked, once', async () => {
    const engine = new FakeEngine();
    await engine.start();
    const prefix = `test-wf-worker-${randomUUID().slice(0, 8)}`;
    const env = {
      REDIS_URL: process.env.REDIS_URL, ENGINE_URL: engine.url, ENGINE_API_KEY: engine.apiKey, HUB_SECRET_KEY: 's'.repeat(40),
      HUBSPOT_CLIENT_SECRET: SECRET, HUBSPOT_API_BASE: hubspot.url, VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent',
    };
    const hub = await startServe(loadHubConfig({ ...env, HUB_ADMIN_TOKEN: `admin-${randomUUID()}` }), { port: 0, host: '127.0.0.1', workers: false, logger: silentLogger });
    const worker = spawn(process.execPath, [cliBin(env), 'worker'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    worker.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
    try {
      await hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, TOKEN));
      const call = await blockedCall(hub.url);
      await until(async () => stderr, (text) => text.includes('worker started'), 90_000);
      expectVerdict(await until(call.completions, (found) => found.length > 0, 60_000));
      expect(engine.callsFor(call.email)).toBe(1);
    } finally {
      worker.kill('SIGTERM');
      await exited;
      await hub.close();
      await purgeServeRedis(prefix);
      await engine.stop();
    }
  }, 180_000);
});
