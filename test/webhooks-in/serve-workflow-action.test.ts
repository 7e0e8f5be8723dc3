import { createHmac, randomUUID } from 'node:crypto';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { startServeStack, until, type ServeStack } from './serve-stack';

/**
 * `verify-hub serve` wired from configuration: HubSpot's signed workflow-action call at
 * POST /actions/hubspot is blocked, then completed once through the fake's callbacks API with the
 * stored connection's token, by the serve process's own worker and the fake engine.
 */
const SECRET = `secret-${randomUUID()}`;
const PORTAL = '808';
const TOKEN = `token-${randomUUID()}`;
const hubspot = new FakeHubSpot();
let stack: ServeStack;

beforeAll(async () => {
  await hubspot.start();
  hubspot.addPortal({ portalId: PORTAL, token: TOKEN });
  stack = await startServeStack('wf-action', `admin-${randomUUID()}`, { HUBSPOT_CLIENT_SECRET: SECRET, HUBSPOT_API_BASE: hubspot.url });
  await stack.hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, TOKEN));
});

afterAll(async () => {
  await stack.close();
  await hubspot.stop();
});

it('blocks a cache miss and completes it once with the engine\'s verdict', async () => {
  const callbackId = hubspot.actions.issueCallback(PORTAL);
  const email = `someone-${randomUUID().slice(0, 6)}@example.com`;
  const body = JSON.stringify({ callbackId, origin: { portalId: Number(PORTAL), actionDefinitionId: 7 }, object: { objectId: 9, objectType: 'CONTACT' }, inputFields: { email } });
  const url = `${stack.hub.url}/actions/hubspot`;
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
  const done = await until(async () => hubspot.actions.completions.filter((c) => c.callbackId === callbackId), (found) => found.length > 0);
  expect(done).toHaveLength(1);
  expect(done[0]!.outputFields).toEqual(expect.objectContaining({ risk: expect.stringMatching(/^(safe|risky|invalid)$/), score: expect.stringMatching(/^\d+$/) }));
  expect(stack.engine.callsFor(email)).toBe(1);
});
