import { randomUUID } from 'node:crypto';
import { EngineClient, createLogger } from '@verify-hub/core';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import type { ActionCompletions, SyncPipeline, SyncWorkers } from '@verify-hub/sync-jobs';
import { actionCompletionsFor } from '../../cli/src/action-completions-wiring';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeEngine } from '../fakes/engine';
import { until } from '../setup/until';
import { actionCallBody, signedActionCall, startActionHub } from './action-harness';
import { platformPipeline } from '../sync-jobs/helpers';

/**
 * Issue 21's acceptance: 1,000 "Verify email address" calls in one burst. Each is answered BLOCK at once
 * and completed exactly once through HubSpot's callback, and the engine is asked at the rate the hub is
 * configured for (the fake engine enforces that rate with real 429s in fixed one-second windows).
 * The completions run as `verify-hub serve` runs them: the workers' rate-limited engine, the module's
 * completion through the stored connection.
 */
const CALLS = 1000;
const RATE = 60;
const SECRET = `app-secret-${randomUUID()}`;
const PORTAL = '77310';
const TOKEN = `portal-token-${randomUUID()}`;

describe('1,000 workflow-action calls in a burst', () => {
  const hubspot = new FakeHubSpot();
  const engine = new FakeEngine({ ratePerSecond: RATE, extensions: true });
  let pipeline: SyncPipeline;
  let workers: SyncWorkers;
  let completions: ActionCompletions;
  let hub: { url: string; close: () => Promise<void> };

  beforeAll(async () => {
    await hubspot.start();
    hubspot.addPortal({ portalId: PORTAL, token: TOKEN, windowLimit: 1_000_000 });
    await engine.start();
    const prefix = `vh-burst-${randomUUID().slice(0, 8)}`;
    pipeline = platformPipeline('unused', { hubspot: hubspotConnectorFactory }, { prefix, engineRatePerSecond: RATE });
    await pipeline.connections!.save({
      id: `hubspot-${PORTAL}`, platform: 'hubspot', label: 'portal', createdAt: new Date().toISOString(),
      credentials: { accessToken: TOKEN }, settings: { apiBase: hubspot.url, requestsPerTenSeconds: 100_000 },
    });
    workers = pipeline.startWorkers({ verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey, retries: 0 }) });
    completions = actionCompletionsFor(pipeline, pipeline.redis, prefix, createLogger({ level: 'silent' }));
    completions.start(workers.verifier, 16);
    hub = await startActionHub(SECRET, () => completions);
  });

  afterAll(async () => {
    await completions?.close();
    await workers?.close();
    await hub?.close();
    await pipeline?.purge();
    await pipeline?.close();
    await engine.stop();
    await hubspot.stop();
  });

  async function call(email: string, callbackId: string): Promise<Record<string, string> | undefined> {
    const res = await signedActionCall(hub.url, SECRET, actionCallBody(PORTAL, email, callbackId));
    expect(res.status).toBe(200);
    return res.body.outputFields;
  }

  it('blocks each at once, completes each exactly once with the engine\'s verdict, and keeps to the engine\'s rate', async () => {
    const calls = Array.from({ length: CALLS }, (_, i) => ({
      email: `${i % 5 === 4 ? 'invalid' : 'user'}.${i}@burst${i % 13}.example.com`,
      callbackId: hubspot.actions.issueCallback(PORTAL),
    }));
    // All sent at once over 50 connections (HubSpot's senders keep connections open; 1,000 new sockets
    // at once would overflow the listen backlog before the hub sees a request).
    const answers: (Record<string, string> | undefined)[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (next < calls.length) {
        const at = next++;
        answers[at] = await call(calls[at]!.email, calls[at]!.callbackId);
      }
    }));
    expect(answers.filter((outputs) => outputs?.hs_execution_state === 'BLOCK')).toHaveLength(CALLS);

    await until(() => hubspot.actions.completions.length >= CALLS, 120_000, `${CALLS} callbacks`);
    await until(async () => (await completions.queue.getJobCounts('completed')).completed === CALLS, 30_000, 'every job to finish');

    // Exactly one completion per call, with the engine's verdict (never unknown: no action gave up).
    const byCallback = new Map<string, Record<string, string>[]>();
    for (const done of hubspot.actions.completions) byCallback.set(done.callbackId, [...(byCallback.get(done.callbackId) ?? []), done.outputFields]);
    expect(calls.filter(({ callbackId }) => byCallback.get(callbackId)?.length !== 1)).toEqual([]);
    const risks = calls.map(({ email, callbackId }) => ({ email, risk: byCallback.get(callbackId)![0]!.risk }));
    expect(risks.filter(({ email, risk }) => risk !== (email.startsWith('invalid') ? 'invalid' : 'safe'))).toEqual([]);
    expect(await completions.queue.getJobCounts('failed')).toEqual({ failed: 0 });

    // Every address asked; the engine's rate held: the workers' limiter starts at most R calls in any
    // rolling second, which the fake's fixed one-second windows can see as a few more (those few get a
    // 429, are not billed, and are retried after the reset), never the burst itself.
    const asked = engine.requests.filter((r) => r.keyMatched);
    expect(new Set(asked.map((r) => r.email)).size).toBe(CALLS);
    const perWindow = new Map<number, number>();
    for (const r of asked) perWindow.set(Math.floor(r.at / 1000), (perWindow.get(Math.floor(r.at / 1000)) ?? 0) + 1);
    expect(Math.max(...perWindow.values())).toBeLessThanOrEqual(RATE * 1.25);
    const refused = asked.length - CALLS;
    expect(refused).toBeLessThanOrEqual(CALLS * 0.05);
  }, 180_000);
});
