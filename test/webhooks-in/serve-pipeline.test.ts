import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { RunningHub } from '../../cli/src/commands/serve';
import { startServeStack, until, type ServeStack } from './serve-stack';

const TOKEN = 'serve-test-admin-token-0123456789';
const HUBSPOT_SECRET = 'serve-test-hubspot-secret';

/** `verify-hub serve` wired from configuration: the real pipeline and workers on the test Redis, the fake engine over HTTP. */
describe('verify-hub serve (hub + real pipeline + workers)', () => {
  let stack: ServeStack;
  let hub: RunningHub;
  const auth = { Authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    stack = await startServeStack('serve', TOKEN, { HUBSPOT_CLIENT_SECRET: HUBSPOT_SECRET });
    ({ hub } = stack);
  });
  afterAll(() => stack?.close());

  it('is ready with Redis up and the workers running', async () => {
    const res = await request(hub.url).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.checks).toEqual({ redis: true, workers: true });
  });

  it('cleans an uploaded file through the queues: cleaned file, removed rows and per-record report', async () => {
    const csv = 'email,name\nada@example.com,Ada\ninvalid.x@example.com,X\nbob@example.org,Bob\n';
    const upload = await request(hub.url).post('/api/files').set(auth).attach('file', Buffer.from(csv), 'list.csv');
    expect(upload.status).toBe(202);
    expect(upload.body.upload).toMatchObject({ rows: 3, emailColumn: 'email' });
    const runId = upload.body.run.id as string;
    const run = await until(
      async () => (await request(hub.url).get(`/api/runs/${runId}`).set(auth)).body,
      (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status),
    );
    expect(run).toMatchObject({ status: 'completed', counters: { pulled: 3 }, progress: { percent: 100 } });
    const cleaned = await request(hub.url).get(`/api/runs/${runId}/files/cleaned`).set(auth).buffer(true);
    expect(cleaned.status).toBe(200);
    const rows = cleaned.text.trim().split(/\r?\n/);
    expect(rows[0]!.startsWith('email,name,')).toBe(true);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(['ada@example.com', 'bob@example.org']);
    const removed = await request(hub.url).get(`/api/runs/${runId}/files/removed`).set(auth).buffer(true);
    expect(removed.text).toContain('invalid.x@example.com');
    const report = await request(hub.url).get(`/api/runs/${runId}/report.csv`).set(auth);
    expect(report.status).toBe(200);
    const lines = report.text.trim().split('\n');
    expect(lines[0]).toBe('contactId,email,risk,score,reason,outcome,error');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 3).join(',')).sort()).toEqual(['ada@example.com,safe', 'bob@example.org,safe', 'invalid.x@example.com,invalid']);
  });

  it('queues a signed HubSpot delivery once through the pipeline, however often it arrives', async () => {
    const body = JSON.stringify([{ eventId: 1, subscriptionId: 1, portalId: 777, appId: 1, occurredAt: Date.now(), subscriptionType: 'contact.creation', attemptNumber: 0, objectId: 4242, changeSource: 'CRM' }]);
    const send = () => {
      const ts = String(Date.now());
      const url = `${hub.url}/webhooks/hubspot`;
      const sig = createHmac('sha256', HUBSPOT_SECRET).update(`POST${url}${body}${ts}`).digest('base64');
      return request(hub.url).post('/webhooks/hubspot').set({ 'content-type': 'application/json', 'x-hubspot-signature-v3': sig, 'x-hubspot-request-timestamp': ts }).send(body);
    };
    const first = await send();
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: 1 });
    const again = await send();
    expect(again.body).toEqual({ received: 1 });
    const metric = async () => (await request(hub.url).get('/metrics')).text;
    await until(metric, (text) => /verify_hub_webhook_events_total\{platform="hubspot",outcome="duplicate"\} 1/.test(text));
    expect(await metric()).toMatch(/verify_hub_webhook_events_total\{platform="hubspot",outcome="queued"\} 1\n/);
    const counts = await hub.pipeline.queues.events.getJobCounts('delayed', 'waiting', 'active', 'completed', 'failed');
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it('mounts the MCP endpoint (its own key auth) and serves pipeline metrics', async () => {
    const mcp = await request(hub.url).post('/mcp').send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(401);
    const metrics = await request(hub.url).get('/metrics');
    expect(metrics.text).toContain('verify_hub_queue_depth');
    expect(metrics.text).toContain('verify_hub_http_request_duration_seconds');
  });
});
