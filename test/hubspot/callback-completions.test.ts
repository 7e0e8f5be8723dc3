import { randomUUID } from 'node:crypto';
import { MAX_CALLBACK_BATCH, actionCompletion } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector, verification } from './helpers';

/**
 * Completing blocked workflow actions as HubSpot publishes it, against the fake that validates each
 * body (`CallbackCompletionRequest`: `outputFields` and `typedOutputs`): one completion alone on the
 * single endpoint, several due at once in one `callbacks/complete` call, a batch HubSpot refuses sent
 * again one by one so each completion gets its own answer.
 */
const PORTAL = '73001';
const TOKEN = `cb-token-${randomUUID()}`;
const hubspot = new FakeHubSpot();

beforeAll(async () => {
  await hubspot.start();
  hubspot.addPortal({ portalId: PORTAL, token: TOKEN, windowLimit: 1000 });
});
afterAll(() => hubspot.stop());
beforeEach(() => hubspot.resetCalls());

const completion = (email: string, score = 77) => actionCompletion(verification(email, { score }));

it('one completion goes alone, with outputFields and typedOutputs (the score a number)', async () => {
  const id = hubspot.actions.issueCallback(PORTAL);
  await connector(hubspot, PORTAL, TOKEN).completeAction(id, completion('one@example.com', 64));
  expect(hubspot.callsTo(/\/callbacks\//).map((c) => c.path)).toEqual([`/automation/v4/actions/callbacks/${id}/complete`]);
  expect(hubspot.actions.completions.find((c) => c.callbackId === id)).toMatchObject({ batchOf: 1, outputFields: { score: '64', risk: 'safe' }, typedOutputs: { score: 64, risk: 'safe' } });
});

it('several due at once, from different connector objects of the portal, go in one batch call; past 100, in more', async () => {
  const ids = Array.from({ length: MAX_CALLBACK_BATCH + 5 }, () => hubspot.actions.issueCallback(PORTAL));
  await Promise.all(ids.map((id, n) => connector(hubspot, PORTAL, TOKEN).completeAction(id, completion(`many-${n}@example.com`, n % 101))));
  const calls = hubspot.callsTo(/\/callbacks\//);
  expect(calls.map((c) => [c.path, c.inputs, c.status]).sort((a, b) => Number(b[1]) - Number(a[1]))).toEqual([
    ['/automation/v4/actions/callbacks/complete', MAX_CALLBACK_BATCH, 204],
    ['/automation/v4/actions/callbacks/complete', 5, 204],
  ]);
  for (const [n, id] of ids.entries()) {
    expect(hubspot.actions.completions.filter((c) => c.callbackId === id)).toEqual([expect.objectContaining({ typedOutputs: expect.objectContaining({ score: n % 101 }) })]);
  }
});

it('a batch HubSpot refuses for one callback is sent again one by one: the others complete, that one fails alone', async () => {
  const good = [hubspot.actions.issueCallback(PORTAL), hubspot.actions.issueCallback(PORTAL)];
  const expired = `expired-${randomUUID().slice(0, 8)}`;
  const settled = await Promise.allSettled([...good, expired].map((id) => connector(hubspot, PORTAL, TOKEN).completeAction(id, completion(`${id}@example.com`))));
  expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  expect((settled[2] as PromiseRejectedResult).reason.message).toMatch(/No pending callback/);
  expect(hubspot.callsTo(/\/callbacks\//).map((c) => [c.path.replace(/callbacks\/[^/]+\/complete/, 'callbacks/<id>/complete'), c.status])).toEqual([
    ['/automation/v4/actions/callbacks/complete', 400],
    ['/automation/v4/actions/callbacks/<id>/complete', 204],
    ['/automation/v4/actions/callbacks/<id>/complete', 204],
    ['/automation/v4/actions/callbacks/<id>/complete', 400],
  ]);
  expect(hubspot.actions.completions.filter((c) => good.includes(c.callbackId))).toHaveLength(2);
});

it('the fake refuses a completion without typedOutputs, or with a non-string output field, naming the field', async () => {
  const id = hubspot.actions.issueCallback(PORTAL);
  const post = (body: unknown) =>
    fetch(`${hubspot.url}/automation/v4/actions/callbacks/${id}/complete`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const message = async (body: unknown) => ((await (await post(body)).json()) as { message: string }).message;
  expect(await message({ outputFields: { risk: 'safe' } })).toMatch(/typedOutputs/);
  expect(await message({ outputFields: { score: 5 }, typedOutputs: {} })).toMatch(/outputFields\.score/);
  expect(await message({ inputs: [] })).toMatch(/outputFields|inputs/);
  expect(hubspot.actions.completions.some((c) => c.callbackId === id)).toBe(false);
});
