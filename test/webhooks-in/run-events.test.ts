import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createHarness, bearer, until, type Harness } from './harness';

describe('GET /api/runs/:id/events (server-sent events)', () => {
  let h: Harness;
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    h = await createHarness();
    const server = h.hub.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    await close();
    await h.close();
  });

  it('needs the same auth as the run itself', async () => {
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    expect((await request(h.hub.app).get(`/api/runs/${run.id}/events`)).status).toBe(401);
    expect((await request(h.hub.app).get('/api/runs/run_nope/events').set(bearer)).status).toBe(404);
  });

  it('pushes the run view at once and on each change, and ends when the run finished', async () => {
    const run = await h.runs.start({ platform: 'file', connectionId: 'file-1', scope: 'file:list.csv', expectedTotal: 100 });
    const events: { event: string; data: { status: string; progress: { done: number; total?: number; percent?: number } } }[] = [];
    let ended = false;
    let buffer = '';
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`${base}/api/runs/${run.id}/events`, { headers: bearer }, resolve).on('error', reject).end(),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
    });
    response.on('end', () => (ended = true));

    await until(() => events.length === 1);
    expect(events[0]).toMatchObject({ event: 'run', data: { status: 'queued', progress: { done: 0, total: 100, percent: 0 } } });
    h.runs.update(run.id, { status: 'running', counters: { ...run.counters, pulled: 60, written: 40 } });
    await until(() => events.length === 2);
    expect(events[1]!.data).toMatchObject({ status: 'running', progress: { done: 40, total: 100, percent: 40 } });
    h.runs.update(run.id, { status: 'completed', counters: { ...run.counters, pulled: 100, written: 100 } });
    await until(() => ended);
    expect(events.at(-1)!.data).toMatchObject({ status: 'completed', progress: { done: 100, total: 100, percent: 100 } });
  });

  it('ends an open stream when the server stops listening, so a shutdown does not wait for it', async () => {
    const run = await h.runs.start({ platform: 'hubspot', connectionId: 'hubspot-1', scope: 'all' });
    const server = h.hub.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpRequest(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/runs/${run.id}/events`, { headers: bearer }, resolve).on('error', reject).end(),
    );
    let ended = false;
    response.resume();
    response.on('end', () => (ended = true));
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await until(() => ended, 3_000);
    server.closeIdleConnections(); // the client's kept-alive socket, now idle
    await closed;
  });
});
