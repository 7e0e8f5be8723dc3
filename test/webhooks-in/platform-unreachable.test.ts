import { createServer, type Server, type Socket } from 'node:net';
import request from 'supertest';
import { PlatformUnreachableError, createLocalLimiter, networkFailure, type ConnectionRecord } from '@verify-hub/core';
import { HubSpotConnector, HubSpotUnreachableError } from '@verify-hub/connector-hubspot';
import { MailchimpConnector, MailchimpUnavailableError, MailchimpUnreachableError } from '@verify-hub/connector-mailchimp';
import { platformCatalog, platformSetups, loadHubConfig } from '../../cli/src/platforms';
import { cli } from '../cli/run-cli';
import { FakeOperations } from './dashboard-fakes';
import { MemoryConnectionStore } from './file-cleaning';
import { bearer, createHarness, type Harness } from './harness';

/**
 * A platform that cannot be reached (its base URL pointing at a closed port) is reported as what to
 * do, naming the platform and the variable of its address, by the connectors, the hub (502) and the
 * CLI: never "internal error".
 */

const TOKEN = 'pat-unreachable-token-0123456789';
const HUBSPOT_WORDS = 'HubSpot could not be reached: check the network or HUBSPOT_API_BASE (connection refused)';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const deps = { limiter: createLocalLimiter, saveCredentials: async () => undefined };

describe('a platform that cannot be reached', () => {
  let closedBase: string;
  let silent: Server;
  let silentBase: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    closedBase = `http://127.0.0.1:${await closedPort()}`;
    // Accepts connections and never answers: a timeout.
    silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentBase = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('core reads why a request got no answer: refused, timed out, DNS; nothing for other errors', async () => {
    expect(networkFailure(await fetch(closedBase).catch((e: unknown) => e))).toBe('connection refused');
    expect(networkFailure(await fetch(silentBase, { signal: AbortSignal.timeout(150) }).catch((e: unknown) => e))).toBe('timed out');
    expect(networkFailure(Object.assign(new Error('getaddrinfo ENOTFOUND api.example'), { code: 'ENOTFOUND' }))).toBe('the host name was not found in DNS');
    expect(networkFailure(new Error('bug'))).toBeUndefined();
    expect(networkFailure({ status: 500 })).toBeUndefined();
  });

  it('HubSpot: the connector says what to check once its retries are spent (schema setup, pull)', async () => {
    const record: ConnectionRecord = { id: 'hubspot-9', platform: 'hubspot', label: 'Portal 9', createdAt: new Date().toISOString(), credentials: { accessToken: TOKEN }, settings: { portalId: '9', apiBase: closedBase } };
    const connector = new HubSpotConnector(record, deps, { retry: { maxAttempts: 2, backoff: { baseMs: 1, maxMs: 2 } } });
    const error = await connector.ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubSpotUnreachableError);
    expect(error).toBeInstanceOf(PlatformUnreachableError);
    expect(error).toMatchObject({ code: 'PLATFORM_UNREACHABLE', source: 'hubspot', message: HUBSPOT_WORDS });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(TOKEN);
  });

  it('Mailchimp: the same words with its own variable, and still a Mailchimp unavailability (retried alike)', async () => {
    const record: ConnectionRecord = { id: 'mailchimp-us1-l1', platform: 'mailchimp', label: 'Audience', createdAt: new Date().toISOString(), credentials: { apiKey: `${'a'.repeat(32)}-us1` }, settings: { listId: 'l1', apiBase: closedBase, retry: { attempts: 2, baseMs: 1, maxMs: 2 } } };
    const connector = new MailchimpConnector(record, deps);
    const error = await connector.api.mergeFields('l1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailchimpUnreachableError);
    expect(error).toBeInstanceOf(MailchimpUnavailableError);
    expect(error).toBeInstanceOf(PlatformUnreachableError);
    expect((error as Error).message).toBe('Mailchimp could not be reached: check the network or MAILCHIMP_API_BASE (list merge fields: connection refused)');
    expect((error as Error).message).not.toContain('a'.repeat(32));
    // A HubSpot class is not a Mailchimp error, whatever the shared kind.
    expect(error).not.toBeInstanceOf(HubSpotUnreachableError);
  });

  describe('the hub', () => {
    let h: Harness;
    let operations: FakeOperations;
    let connections: MemoryConnectionStore;
    beforeAll(async () => {
      connections = new MemoryConnectionStore();
      operations = new FakeOperations(connections);
      h = await createHarness({ catalog: platformCatalog(), connections, operations, platforms: platformSetups(loadHubConfig({ HUBSPOT_API_BASE: closedBase })) });
    });
    afterAll(async () => {
      await h.close();
    });

    it('answers a connection check with 502 and the words of what to do, never "internal error"', async () => {
      const res = await request(h.hub.app).post('/api/connections/hubspot').set(bearer).send({ accessToken: TOKEN });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ code: 'PLATFORM_UNREACHABLE', error: HUBSPOT_WORDS });
    });

    it('answers schema setup the same way (the error of a real failed call)', async () => {
      const record: ConnectionRecord = { id: 'hubspot-9', platform: 'hubspot', label: 'Portal 9', createdAt: new Date().toISOString(), credentials: { accessToken: TOKEN }, settings: { portalId: '9', apiBase: closedBase } };
      await connections.save(record);
      operations.schemaError = (await new HubSpotConnector(record, deps, { retry: { maxAttempts: 1 } }).ensureSchema().then(
        () => new Error('expected the call to fail'),
        (e: unknown) => e as Error,
      ));
      const res = await request(h.hub.app).post('/api/connections/hubspot-9/ensure-schema').set(bearer);
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ code: 'PLATFORM_UNREACHABLE', error: HUBSPOT_WORDS });
    });
  });

  it('the CLI prints the same words', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { HUBSPOT_ACCESS_TOKEN: TOKEN, HUBSPOT_API_BASE: closedBase, HUB_SECRET_KEY: 'a-test-secret-key-of-at-least-32-characters' });
    try {
      const { code, err } = await cli('hubspot', 'connect');
      expect(code).not.toBe(0);
      expect(err).toContain(`verify-hub: ${HUBSPOT_WORDS}`);
      expect(err).not.toContain(TOKEN);
    } finally {
      for (const name of ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_API_BASE', 'HUB_SECRET_KEY']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });
});
