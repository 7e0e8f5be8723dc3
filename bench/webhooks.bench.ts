/**
 * Webhook ingest of the hub service, on loopback only.
 *
 * 1. Ingest: a second process serves the hub (HubSpot receiver over the real pipeline's
 *    `enqueueEvent` on Redis: dedupe, coalescing gate, BullMQ add) and, beside it, a baseline Express
 *    app that answers 200 and does nothing. This process posts HubSpot-style batches of 100 freshly
 *    signed, never-repeated events to each for the same time, first at the goal rate of 3,000
 *    events/s as a steady open-loop load (bench/steady-load.ts: p99 ack latency under that load),
 *    then the same rate as autocannon's bursts, then with autocannon as fast as they go (events/s at
 *    saturation), each followed by the time the forwarder needs to hand the backlog to the pipeline;
 *    printed with the hub's ratio to the baseline. Goals: >= 3,000 events/s on 2 cores, p99 < 25 ms.
 *    The forwarder runs in a thread (HUB_WEBHOOK_FORWARDER=thread), on the HTTP event loop (serve's
 *    default) and in a third process (`serve --no-workers` + `verify-hub worker`).
 * 2. New contact to write-back: a signed `contact.creation` delivery for a contact of the fake
 *    HubSpot, through the hub and the pipeline's event worker (engine answering in 200 ms) until the
 *    contact's `ev_risk` is written. Goal p95 < 1.5 s. The pipeline coalesces events per contact for
 *    `eventCoalesceMs`: this bench sets it to 250 ms (the default 5 s is a deliberate wait, not work).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import { createLogger, EngineClient, SecretBox, type ConnectionRecord } from '@verify-hub/core';
import { hubspotConnectorFactory, hubspotReceiver } from '@verify-hub/connector-hubspot';
import { ConnectorRegistry, Keys, RedisConnectionStore, SyncPipeline, createRedis } from '@verify-hub/sync-jobs';
import { createHubApp, startHubServer, startWebhookForwarder } from '@verify-hub/webhooks-in';
import { loadHubConfig } from '../cli/src/platforms';
import { startForwarderThread, webhookIngestQueueName } from '../cli/src/webhook-forwarding';
import { FakeEngine } from '../test/fakes/engine';
import { FakeHubSpot } from '../test/fakes/hubspot/fake-hubspot';
import { ensureBuilt, removeBuild } from './built/build';
import { bundleForNode } from './built/run-built';
import { percentile } from '../test/setup/percentile';
import { steadyLoad } from './steady-load';

const SECRET = 'bench-hubspot-app-secret';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION_S = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 10);
const CONNECTIONS = 16;
/** The steady goal-rate runs last longer: 600 batches, so p99 is not the 3rd slowest of 300. */
const STEADY_S = Number(process.env.WEBHOOK_BENCH_STEADY_SECONDS ?? 20);
/** Batches per second of the latency run: 3,000 events/s, the throughput goal. */
const GOAL_RATE = 30;
const silent = createLogger({ level: 'silent' });
/** As bench/run.ts runs benches (importing run.ts would start every bench: it has no main guard). */

// ------------------------------------------------------------------ the server process

/** Where the hub's accepted deliveries are handed to the pipeline. */
type Forwarding = 'thread' | 'event-loop' | 'elsewhere';
const FORWARDING: Record<Forwarding, string> = {
  thread: "forwarded by the hub's forwarder thread (HUB_WEBHOOK_FORWARDER=thread)",
  'event-loop': 'forwarded on the hub\'s HTTP event loop (serve\'s default)',
  elsewhere: 'forwarded by a third process (serve --no-workers + worker)',
};

async function serve(forwarding: Forwarding): Promise<void> {
  const prefix = `bench-webhooks-${randomUUID().slice(0, 8)}`;
  const queueName = webhookIngestQueueName(prefix);
  const pipeline = new SyncPipeline({ redisUrl: REDIS_URL, prefix, logger: silent });
  const redis = createRedis(REDIS_URL);
  const hub = createHubApp({ runs: pipeline, redis, uploadDir: '/tmp', logger: silent, keyPrefix: `${prefix}:hub:`, delivery: { enabled: false }, ingest: { queueName, worker: forwarding === 'event-loop' }, webhooks: { hubspot: { receiver: hubspotReceiver(SECRET) } } });
  const forwarder = forwarding === 'elsewhere' ? spawn(process.execPath, [...process.execArgv, __filename, '--forward', prefix], { stdio: ['pipe', 'inherit', 'inherit'], env: process.env }) : undefined;
  // As serve starts it: its own pipeline from the configuration (here: this Redis and prefix).
  const thread = forwarding === 'thread' ? await startForwarderThread(loadHubConfig({ REDIS_URL, VERIFY_HUB_REDIS_PREFIX: prefix, LOG_LEVEL: 'silent' }), silent, (counts) => hub.ingest.countForwarded(counts)) : undefined;
  const server = await startHubServer(hub, { port: 0, host: '127.0.0.1' });

  const baseline = express();
  baseline.post('/webhooks/hubspot', (_req, res) => {
    res.status(200).end();
  });
  const baseServer = baseline.listen(0, '127.0.0.1');
  await once(baseServer, 'listening');

  process.stdout.write(`${JSON.stringify({ hub: server.url, baseline: `http://127.0.0.1:${(baseServer.address() as AddressInfo).port}` })}\n`);
  // Commands on stdin: `backlog` reports deliveries not yet forwarded to the pipeline; `stop` ends.
  for await (const chunk of process.stdin) {
    const command = String(chunk).trim();
    if (command === 'backlog') process.stdout.write(`${JSON.stringify({ backlog: await hub.ingest.backlog() })}\n`);
    if (command === 'stop') break;
  }
  if (forwarder) {
    const exited = forwarder.exitCode === null ? once(forwarder, 'exit') : undefined;
    forwarder.stdin!.end('stop\n');
    await exited;
  }
  await thread?.close();
  const queued = await pipeline.queues.events.count();
  await hub.ingest.queue.obliterate({ force: true });
  await server.close();
  baseServer.close();
  await pipeline.purge();
  await pipeline.close();
  await redis.quit();
  process.stdout.write(`${JSON.stringify({ queued })}\n`);
}

/** The forwarding role alone (what a `verify-hub worker` runs for an HTTP-only hub), until stdin closes. */
async function forward(prefix: string): Promise<void> {
  const pipeline = new SyncPipeline({ redisUrl: REDIS_URL, prefix, logger: silent });
  const redis = createRedis(REDIS_URL);
  const forwarder = startWebhookForwarder(redis, pipeline, { queueName: webhookIngestQueueName(prefix) }, silent);
  for await (const chunk of process.stdin) if (String(chunk).includes('stop')) break;
  await forwarder.close();
  await pipeline.close();
  await redis.quit();
}

// ------------------------------------------------------------------ the load process

let nextObject = 1;
function signedBatch(url: string, portalId: number, size: number): { body: string; headers: Record<string, string> } {
  const now = Date.now();
  const events = Array.from({ length: size }, () => ({
    eventId: nextObject, subscriptionId: 1, portalId, appId: 1, occurredAt: now, subscriptionType: 'contact.creation', attemptNumber: 0, objectId: nextObject++, changeSource: 'CRM',
  }));
  const body = JSON.stringify(events);
  const timestamp = String(now);
  const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`).digest('base64');
  return { body, headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp } };
}

/** autocannon against one target; `rate` caps batches per second across all connections (absent: as fast as it goes). */
async function load(base: string, rate?: number): Promise<autocannon.Result> {
  const url = `${base}/webhooks/hubspot`;
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION_S,
    ...(rate ? { overallRate: rate, ignoreCoordinatedOmission: true } : {}),
    requests: [
      {
        method: 'POST',
        path: '/webhooks/hubspot',
        setupRequest: (req) => {
          const batch = signedBatch(url, 4242, 100);
          return { ...req, body: batch.body, headers: batch.headers };
        },
      },
    ],
  });
}

/** The goal rate as a steady open-loop load (bench/steady-load.ts): latency from each batch's planned send time. */
async function steady(base: string, name: string): Promise<{ p99: number }> {
  const url = `${base}/webhooks/hubspot`;
  const r = await steadyLoad(base, GOAL_RATE, STEADY_S, () => ({ path: '/webhooks/hubspot', ...signedBatch(url, 4242, 100) }));
  const [p50, p99] = [percentile(r.latencies, 50), percentile(r.latencies, 99)];
  console.log(`${name.padEnd(9)} ${((r.ok * 100) / STEADY_S).toFixed(0).padStart(7)} events/s (${r.ok} batches acked of ${r.sent}, ${r.failed} failed)  ack latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${r.latencies.at(-1)!.toFixed(1)} ms`);
  return { p99 };
}

function line(name: string, r: autocannon.Result): { eventsPerSecond: number; p99: number } {
  const ok = r['2xx'];
  const eventsPerSecond = (ok * 100) / (r.duration || DURATION_S);
  console.log(
    `${name.padEnd(9)} ${eventsPerSecond.toFixed(0).padStart(7)} events/s (${r.requests.average.toFixed(0)} batches/s)  ack latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, max ${r.latency.max} ms  non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}`,
  );
  return { eventsPerSecond, p99: r.latency.p99 };
}

/** `goalRateOnly`: only the ack latency at the goal rate against the baseline (what `npm run bench scale` prints). */
async function ingest(goalRateOnly: boolean, forwarding: Forwarding, serverScript: string): Promise<void> {
  // WEBHOOK_BENCH_SERVER_NODE_ARGS: node flags for the measured hub only (to profile it: `--cpu-prof --cpu-prof-dir=/tmp/x`).
  const nodeArgs = (process.env.WEBHOOK_BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, serverScript, '--serve', forwarding], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  // Listened for from the start: a child that exits before a later `once` would leave it waiting on
  // nothing, and node would end this process quietly with the remaining modes unmeasured.
  const exited = once(child, 'exit');
  const lines: string[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  const nextLine = async () => {
    while (lines.length === 0) await new Promise((r) => setTimeout(r, 20));
    return JSON.parse(lines.shift()!) as Record<string, unknown>;
  };
  const urls = (await nextLine()) as { hub: string; baseline: string };

  console.log(`ingest: ${CONNECTIONS} connections, ${DURATION_S} s each, batches of 100 signed contact.creation events, server in a second process, ${FORWARDING[forwarding]}`);
  // A short warm-up so JIT and connection pools do not count against the first measured target.
  await autocannon({ url: `${urls.hub}/webhooks/hubspot`, connections: 2, amount: 50, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, ...signedBatch(`${urls.hub}/webhooks/hubspot`, 4242, 100) }) }] });
  const drain = async (): Promise<number> => {
    const started = Date.now();
    for (;;) {
      child.stdin!.write('backlog\n');
      if (((await nextLine()) as { backlog: number }).backlog === 0) return Date.now() - started;
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  console.log(`-- at the goal rate, steady: a batch every ${(1000 / GOAL_RATE).toFixed(1)} ms = ${GOAL_RATE * 100} events/s for ${STEADY_S} s (open loop; latency from each batch's planned send time):`);
  const baselineAtGoal = await steady(urls.baseline, 'baseline');
  const hubAtGoal = await steady(urls.hub, 'hub');
  console.log(`hub / baseline p99: ${hubAtGoal.p99.toFixed(1)} ms vs ${baselineAtGoal.p99.toFixed(1)} ms; goal p99 < 25 ms -> ${hubAtGoal.p99 < 25 ? 'met' : 'NOT met'}`);
  console.log(`   forwarding to the pipeline caught up ${await drain()} ms after the load stopped`);
  console.log(`-- the same rate as autocannon sends it (each second's ${GOAL_RATE} batches at once from ${CONNECTIONS} connections: a burst, not a steady rate; its coordinated-omission correction off, see steady-load.ts):`);
  line('baseline', await load(urls.baseline, GOAL_RATE));
  line('hub', await load(urls.hub, GOAL_RATE));
  await drain();
  if (!goalRateOnly) {
    console.log('-- as fast as it goes (saturation):');
    const baseline = line('baseline', await load(urls.baseline));
    const hub = line('hub', await load(urls.hub));
    console.log(`hub / baseline: ${(hub.eventsPerSecond / baseline.eventsPerSecond).toFixed(3)}x events/s; goal >= 3,000 events/s -> ${hub.eventsPerSecond >= 3000 ? 'met' : 'NOT met'}`);
    console.log(`   forwarding to the pipeline caught up ${await drain()} ms after the load stopped (sustained rate = accepted / (load time + catch-up))`);
  }
  child.stdin!.write('stop\n');
  const done = (await nextLine()) as { queued: number };
  console.log(`event jobs in the pipeline at the end (one per new contact, none lost): ${done.queued}`);
  await exited;
}

// ------------------------------------------------------------------ new contact -> write-back

async function endToEnd(samples: number): Promise<void> {
  const engine = new FakeEngine({ latencyMs: 200 });
  await engine.start();
  const hubspot = new FakeHubSpot();
  await hubspot.start();
  const portalId = '5151';
  hubspot.addPortal({ portalId, token: 'bench-token', windowLimit: 100_000 });

  const prefix = `bench-e2e-${randomUUID().slice(0, 8)}`;
  const redis = createRedis(REDIS_URL);
  const connections = new RedisConnectionStore(redis, new Keys(prefix), new SecretBox('b'.repeat(40)));
  const connection: ConnectionRecord = { id: `hubspot-${portalId}`, platform: 'hubspot', label: portalId, createdAt: new Date().toISOString(), credentials: { accessToken: 'bench-token' }, settings: { apiBase: hubspot.url } };
  await connections.save(connection);
  const pipeline = new SyncPipeline({
    redisUrl: REDIS_URL,
    prefix,
    logger: silent,
    verifier: new EngineClient({ baseUrl: engine.url, apiKey: engine.apiKey }),
    connectors: new ConnectorRegistry().register('hubspot', hubspotConnectorFactory),
    connections,
    eventCoalesceMs: 250,
  });
  await hubspotConnectorFactory(connection, { limiter: pipeline.limiters, saveCredentials: async () => undefined }).ensureSchema();
  const workers = pipeline.startWorkers();
  const hub = createHubApp({ runs: pipeline, redis, uploadDir: '/tmp', logger: silent, keyPrefix: `${prefix}:hub:`, delivery: { enabled: false }, ingest: { queueName: `${prefix}-ingest` }, webhooks: { hubspot: { receiver: hubspotReceiver(SECRET) } } });
  const server = await startHubServer(hub, { port: 0, host: '127.0.0.1' });
  const url = `${server.url}/webhooks/hubspot`;

  const durations: number[] = [];
  const ids = hubspot.addContacts(portalId, Array.from({ length: samples }, (_, i) => ({ email: `new${i}@example.com` })));
  for (const [i, id] of ids.entries()) {
    const started = Date.now();
    const event = { eventId: i, subscriptionId: 1, portalId: Number(portalId), appId: 1, occurredAt: started, subscriptionType: 'contact.creation', attemptNumber: 0, objectId: Number(id), changeSource: 'CRM' };
    const body = JSON.stringify([event]);
    const timestamp = String(started);
    const signature = createHmac('sha256', SECRET).update(`POST${url}${body}${timestamp}`).digest('base64');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hubspot-signature-v3': signature, 'x-hubspot-request-timestamp': timestamp }, body });
    if (!res.ok) throw new Error(`webhook answered ${res.status}`);
    const contact = hubspot.portal(portalId).contacts.get(id)!;
    while (!contact.properties.ev_risk) {
      if (Date.now() - started > 15_000) throw new Error(`contact ${id} not written back within 15 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    durations.push(Date.now() - started);
  }
  const pct = (p: number) => percentile(durations, p);
  console.log(`\nnew contact -> write-back (${samples} contacts, one at a time; engine 200 ms; coalescing window 250 ms):`);
  console.log(`  p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${Math.max(...durations)} ms; goal p95 < 1,500 ms -> ${pct(95) < 1500 ? 'met' : 'NOT met'}`);
  console.log(`  of which fixed waits: coalescing 250 ms + engine 200 ms = 450 ms (the baseline a zero-overhead pipeline would take)`);

  await hub.ingest.queue.obliterate({ force: true });
  await server.close();
  await workers.close();
  await pipeline.purge();
  await pipeline.close();
  await redis.quit();
  await hubspot.stop();
  await engine.stop();
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve(process.argv[process.argv.indexOf('--serve') + 1] as Forwarding);
  if (process.argv.includes('--forward')) return forward(process.argv[process.argv.indexOf('--forward') + 1]!);
  const ackOnly = process.argv.includes('--ack-only');
  // The server side runs as deployed: plain node over the built packages (ts-node's compiler, over
  // 100 MB of heap, lengthened every GC pause and so the acks' p99).
  const built = ensureBuilt();
  const server = await bundleForNode(__filename);
  try {
    // WEBHOOK_BENCH_FORWARDING=thread,elsewhere measures only those (the first also at saturation).
    const chosen = (process.env.WEBHOOK_BENCH_FORWARDING ?? 'thread,event-loop,elsewhere').split(',') as Forwarding[];
    for (const [i, forwarding] of chosen.entries()) await ingest(ackOnly || i > 0, forwarding, server.file);
    if (!ackOnly) await endToEnd(Number(process.env.WEBHOOK_BENCH_E2E_SAMPLES ?? 40));
  } finally {
    server.remove();
    if (built) removeBuild();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
