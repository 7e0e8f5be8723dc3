import request from 'supertest';
import { registerPlatform, unregisterPlatform } from '../../../cli/src/platforms';
import { cli } from '../../cli/run-cli';
import { startServeStack, until, type ServeStack } from '../../webhooks-in/serve-stack';
import { ToyService } from './toy-service';
import { toyPlatform, toyState } from './toy-platform';

const TOKEN = 'toy-test-admin-token-0123456789';
const auth = { Authorization: `Bearer ${TOKEN}` };

/**
 * A throwaway platform added through the module contract only: registered at run time, it connects,
 * syncs, receives a webhook, answers its own route, runs its task and command, and is listed where
 * the dashboard reads platforms, with no edit outside this folder.
 */
describe('a platform added through the module contract (toy CRM)', () => {
  const service = new ToyService();
  let stack: ServeStack;

  beforeAll(async () => {
    await service.start();
    service.addContact('ada@example.com');
    service.addContact('invalid.bob@example.com');
    service.addContact('risky.cy@example.com');
    registerPlatform(toyPlatform);
    stack = await startServeStack('toy', TOKEN);
  });
  /** The run once it stopped moving: completed, failed, cancelled or paused. */
  const settledRun = (id: string) =>
    until(
      async () => (await request(stack.hub.url).get(`/api/runs/${id}`).set(auth)).body,
      (r) => ['completed', 'failed', 'cancelled', 'paused'].includes(r.status),
      60_000,
    );

  afterAll(async () => {
    await stack?.close();
    unregisterPlatform('toy');
    await service.stop();
  });

  it('is listed by GET /api/platforms with its card and key form, beside the installed ones', async () => {
    const res = await request(stack.hub.url).get('/api/platforms').set(auth);
    expect(res.status).toBe(200);
    const ids = (res.body.platforms as { id: string }[]).map((p) => p.id);
    expect(ids).toEqual(expect.arrayContaining(['file', 'hubspot', 'mailchimp', 'toy']));
    const toy = res.body.platforms.find((p: { id: string }) => p.id === 'toy');
    expect(toy).toEqual({
      id: 'toy',
      label: 'Toy CRM',
      connectable: true,
      card: { description: 'A throwaway platform for tests', scopes: [{ scope: 'all', label: 'All contacts' }], defaultScope: 'all' },
      connect: { oauth: false, webhookUrl: false, keyFields: [{ name: 'apiKey', label: 'API key', secret: true, help: 'Toy CRM: Settings > API' }, { name: 'baseUrl', label: 'API address', secret: false }] },
      webhook: true,
    });
    expect(res.body.platforms.find((p: { id: string }) => p.id === 'file')).toMatchObject({ connectable: false });
  });

  it('connects with its key form (a wrong key is refused naming the field), and the connections page lists it', async () => {
    const wrong = await request(stack.hub.url).post('/api/connections/toy').set(auth).send({ apiKey: 'nope', baseUrl: service.url });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'PLATFORM_REJECTED', field: 'apiKey' });
    expect(wrong.text).not.toContain('nope');

    const connected = await request(stack.hub.url).post('/api/connections/toy').set(auth).send({ apiKey: service.apiKey, baseUrl: service.url });
    expect(connected.status).toBe(201);
    expect(connected.body.connection).toMatchObject({ id: 'toy-acme', platform: 'toy', label: 'Toy CRM acme', auth: 'api_key', details: { account: 'acme' } });

    const page = await request(stack.hub.url).get('/api/connections').set(auth);
    expect(page.body.connections.map((c: { id: string }) => c.id)).toContain('toy-acme');
    expect(page.body.platforms.toy).toMatchObject({ oauth: false, webhookUrl: false });
    expect(JSON.stringify(page.body)).not.toContain(service.apiKey);
  });

  it('syncs: a run pages its contacts, verifies them and writes the results back to the platform', async () => {
    const started = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'toy', connectionId: 'toy-acme', scope: 'all' });
    expect(started.status).toBe(201);
    const refused = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'toy', connectionId: 'toy-acme', scope: 'list:1' });
    expect(refused.status).toBe(400);
    const run = await settledRun(started.body.id as string);
    expect(run).toMatchObject({ status: 'completed', platform: 'toy', counters: { pulled: 3 } });
    expect([...service.contacts.values()].map((c) => [c.email, c.fields.ev_risk])).toEqual([
      ['ada@example.com', 'safe'],
      ['invalid.bob@example.com', 'invalid'],
      ['risky.cy@example.com', 'risky'],
    ]);
  });

  it('receives a signed webhook (a forged one is refused) and verifies the contact it names', async () => {
    const added = service.addContact('invalid.dan@example.com');
    const forged = await service.sendWebhook(`${stack.hub.url}/webhooks/toy`, [{ type: 'created', contactId: added.id }], 'not-the-secret');
    expect(forged.status).toBe(401);
    const delivered = await service.sendWebhook(`${stack.hub.url}/webhooks/toy`, [{ type: 'created', contactId: added.id }]);
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toEqual({ received: 1 });
    await until(async () => service.contacts.get(added.id)!.fields.ev_risk, (risk) => risk === 'invalid', 60_000);
  });

  it('serves its own route, runs its background task while serving, and adds its CLI command', async () => {
    const status = await request(stack.hub.url).get('/platforms/toy/status/acme');
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ connected: true, label: 'Toy CRM acme' });
    expect((await request(stack.hub.url).get('/platforms/toy/status/other')).status).toBe(404);
    expect(toyState.tasksRunning).toBe(1);

    const help = await cli('--help');
    expect(help.out).toMatch(/toy\s+Toy CRM: A throwaway platform for tests/);
    const ping = await cli('toy', 'ping', '--times', '3');
    expect(ping).toMatchObject({ code: 0, out: 'toy: pong x3' });
    expect(toyState.commandRuns).toEqual([['3']]);
  });

  it("pauses a run when the platform refuses the stored key (its errors are core's kinds), saying what to fix", async () => {
    service.revokeKey();
    const started = await request(stack.hub.url).post('/api/runs').set(auth).send({ platform: 'toy', connectionId: 'toy-acme', scope: 'all' });
    expect(started.status).toBe(201);
    const run = await settledRun(started.body.id as string);
    expect(run.status).toBe('paused');
    expect(run.statusReason).toMatch(/Toy CRM refused the API key/);
  });
});
