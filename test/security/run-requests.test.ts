import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { registeredPlatforms } from '../../cli/src/platforms';
import { startServeStack, type ServeStack } from '../webhooks-in/serve-stack';

/**
 * Issue 37's attack on run requests, replayed against `verify-hub serve`: POST /api/runs naming one
 * platform and another platform's connection (an upload's, `file-<upload>`) started the file
 * connector, getting round "file runs start from an upload" and "one run per upload". Platform,
 * connection and scope must belong together, for every platform: 400 naming the field, no run.
 */
const ADMIN = `admin-${randomUUID()}`;
const bearer = { authorization: `Bearer ${ADMIN}` };
let stack: ServeStack;

beforeAll(async () => {
  stack = await startServeStack('sec-runs', ADMIN);
});
afterAll(async () => {
  await stack.close();
});

async function uploadConnection(): Promise<string> {
  const csv = 'email\nann@example.com\nbob@example.com\n';
  const res = await request(stack.hub.url).post('/api/files/preview').set(bearer).attach('file', Buffer.from(csv), 'list.csv');
  expect(res.status).toBe(201);
  return `file-${res.body.upload.id as string}`;
}

const runCount = async () => (await stack.hub.pipeline.list({ limit: 500 })).length;

describe('POST /api/runs: platform, connection and scope belong together', () => {
  it("refuses another platform's run over an upload's connection, for every other registered platform", async () => {
    const connectionId = await uploadConnection();
    const others = registeredPlatforms().map((module) => module.id).filter((id) => !connectionId.startsWith(`${id}-`));
    expect(others.length).toBeGreaterThan(0);
    for (const platform of others) {
      const res = await request(stack.hub.url).post('/api/runs').set(bearer).send({ platform, connectionId, scope: 'all' });
      expect({ platform, status: res.status }).toEqual({ platform, status: 400 });
      expect(res.body.field).toBe('connectionId');
      expect(res.body.error).toMatch(/belongs to/);
    }
    expect(await runCount()).toBe(0);
    expect(stack.engine.requests).toHaveLength(0);
  });

  it("refuses a run of a platform that is not a connection (an upload's) through POST /api/runs, naming platform", async () => {
    const connectionId = await uploadConnection();
    const sources = registeredPlatforms().filter((module) => module.connectable === false);
    expect(sources.length).toBeGreaterThan(0);
    for (const { id } of sources) {
      const res = await request(stack.hub.url).post('/api/runs').set(bearer).send({ platform: id, connectionId, scope: 'all' });
      expect(res.status).toBe(400);
      expect(res.body.field).toBe('body.platform');
    }
    expect(await runCount()).toBe(0);
  });

  it("refuses a platform's run with another platform's scope form, naming scope", async () => {
    const res = await request(stack.hub.url).post('/api/runs').set(bearer).send({ platform: 'hubspot', scope: `file:${stack.uploadDir}/x/list.csv` });
    expect(res.status).toBe(400);
    expect(res.body.field).toBe('scope');
    expect(await runCount()).toBe(0);
  });
});
