import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { FakeKlaviyo, OPENAPI_SUBSET } from '../fakes/klaviyo';
import { pinnedRevision } from '@verify-hub/connector-klaviyo';

/**
 * The fake's answers against Klaviyo's own OpenAPI description (github klaviyo/openapi,
 * openapi/stable.json, MIT): the operations the connector uses, vendored by
 * test/fakes/klaviyo/extract-openapi.js. Each operation is called as the SDK calls it, and its answer
 * (success and refusal) is validated against the response schema the description gives for its status.
 */
/**
 * OpenAPI 3.0's `nullable` beside a `$ref` (or with no `type`) is not JSON Schema: written as "that, or
 * null" (anyOf) so ajv reads it as the description means it; `nullable` with a `type` ajv reads itself.
 */
function asJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, asJsonSchema(v)] as const);
  const copy = Object.fromEntries(entries) as Record<string, unknown>;
  if (copy.nullable === true && copy.type === undefined) {
    delete copy.nullable;
    return { anyOf: [copy, { type: 'null' }] };
  }
  return copy;
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(asJsonSchema(OPENAPI_SUBSET) as object, 'klaviyo');

type Operation = { operationId: string; responses: Record<string, { $ref?: string }> };

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Where, in the description, the schema of `operationId`'s answer of `status` is (its own, or the shared 4XX/5XX one). */
function schemaRef(operationId: string, status: number): string {
  for (const [path, item] of Object.entries(OPENAPI_SUBSET.paths)) {
    for (const [method, op] of Object.entries(item) as [string, Operation][]) {
      if (op.operationId !== operationId) continue;
      const key = op.responses[String(status)] ? String(status) : `${String(status)[0]}XX`;
      const response = op.responses[key];
      if (!response) throw new Error(`${operationId} documents no ${status} answer`);
      const at = response.$ref ? response.$ref.slice(1) : `/${pointer('paths', path, method, 'responses', key)}`;
      return `klaviyo#${at}/${pointer('content', 'application/vnd.api+json', 'schema')}`;
    }
  }
  throw new Error(`no operation ${operationId}`);
}

/** Validates `body` as `operationId`'s answer of `status`, naming every mismatch. */
function expectDocumented(operationId: string, status: number, body: unknown): void {
  const validate = ajv.compile({ $ref: schemaRef(operationId, status) });
  const ok = validate(body);
  expect({ operationId, status, errors: ok ? [] : validate.errors }).toEqual({ operationId, status, errors: [] });
}

describe('the Klaviyo fake answers as Klaviyo documents', () => {
  let fake: FakeKlaviyo;
  let list: string;
  let segment: string;
  beforeAll(async () => {
    fake = await new FakeKlaviyo({ pollsToComplete: 1 }).start();
    list = fake.addList('Newsletter');
    segment = fake.addSegment('Engaged');
    for (let i = 0; i < 150; i++) fake.addProfile(`c${i}@example.com`, { lists: [list], segments: [segment], properties: i % 2 ? { ev_risk: 'safe', ev_score: 90 } : {} });
  });
  afterAll(async () => {
    await fake.stop();
  });

  const call = async (method: string, path: string, body?: unknown, key = fake.apiKey) => {
    const res = await fetch(`${fake.url}${path}`, {
      method,
      headers: { authorization: `Klaviyo-API-Key ${key}`, revision: pinnedRevision(), accept: 'application/vnd.api+json', 'content-type': 'application/vnd.api+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('the check can fail: an answer missing what the description requires is refused', () => {
    const wrong = { data: [{ type: 'account', id: 'x', attributes: { test_account: 'no' }, links: { self: 'http://127.0.0.1/api/accounts/x/' } }] };
    expect(() => expectDocumented('get_accounts', 200, wrong)).toThrow(/timezone|test_account/);
    const badJob = { data: { type: 'profile-bulk-import-job', id: 'j', attributes: { status: 'done', created_at: '2026-01-01T00:00:00+00:00', total_count: 1 }, links: { self: 'http://127.0.0.1/x' } } };
    expect(() => expectDocumented('get_bulk_import_profiles_job', 200, badJob)).toThrow(/allowedValues|enum/);
  });

  it('serves the revision the SDK pins, which is the description vendored', () => {
    expect(pinnedRevision()).toBe(OPENAPI_SUBSET.info.version);
  });

  it('reads: accounts, lists, segments, profiles (all, changed since, by id, of a list and a segment), paged', async () => {
    const reads: [string, string][] = [
      ['get_accounts', '/api/accounts'],
      ['get_lists', '/api/lists'],
      ['get_segments', '/api/segments'],
      ['get_profiles', '/api/profiles?page[size]=100&fields[profile]=email,properties,updated'],
      ['get_profiles', `/api/profiles?filter=${encodeURIComponent('greater-than(updated,2020-01-01T00:00:00Z)')}&sort=updated`],
      ['get_profiles_for_list', `/api/lists/${list}/profiles?page[size]=100&fields[profile]=email,properties,updated`],
      ['get_profiles_for_segment', `/api/segments/${segment}/profiles?page[size]=100`],
    ];
    for (const [operationId, path] of reads) {
      const answer = await call('GET', path);
      expect({ path, status: answer.status }).toEqual({ path, status: 200 });
      expectDocumented(operationId, 200, answer.body);
    }
    const first = await call('GET', '/api/profiles?page[size]=100');
    const next = new URL(String((first.body.links as { next: string }).next));
    const second = await call('GET', `${next.pathname}${next.search}`);
    expectDocumented('get_profiles', 200, second.body);
    expect((second.body.data as unknown[]).length).toBe(50);
  });

  it('jobs: a bulk import with a refused profile, its import errors, a suppression job', async () => {
    const target = [...fake.store.profiles.values()].slice(0, 3);
    fake.refuseEmails.set(target[1]!.email, 'Invalid profile property');
    const created = await call('POST', '/api/profile-bulk-import-jobs', {
      data: { type: 'profile-bulk-import-job', attributes: { profiles: { data: target.map((p) => ({ type: 'profile', id: p.id, attributes: { email: p.email, properties: { ev_risk: 'invalid' } } })) } } },
    });
    expect(created.status).toBe(202);
    expectDocumented('bulk_import_profiles', 202, created.body);
    const id = (created.body.data as { id: string }).id;
    const job = await call('GET', `/api/profile-bulk-import-jobs/${id}`);
    expectDocumented('get_bulk_import_profiles_job', 200, job.body);
    expect((job.body.data as { attributes: { failed_count: number } }).attributes.failed_count).toBe(1);
    const errors = await call('GET', `/api/profile-bulk-import-jobs/${id}/import-errors`);
    expectDocumented('get_errors_for_bulk_import_profiles_job', 200, errors.body);
    const suppress = await call('POST', '/api/profile-suppression-bulk-create-jobs', { data: { type: 'profile-suppression-bulk-create-job', attributes: { profiles: { data: [{ type: 'profile', attributes: { email: target[0]!.email } }] } } } });
    expectDocumented('bulk_suppress_profiles', 202, suppress.body);
    const suppressJob = await call('GET', `/api/profile-suppression-bulk-create-jobs/${(suppress.body.data as { id: string }).id}`);
    expectDocumented('get_bulk_suppress_profiles_job', 200, suppressJob.body);
  });

  it('refusals: a missing scope (403), an unknown key (401), too large a page (400), a throttled call (429 with Retry-After), a list filtered by updated (400)', async () => {
    const narrow = fake.createKey(['accounts:read']);
    const refusals: [string, number, Promise<{ status: number; body: Record<string, unknown> }>][] = [
      ['get_profiles', 403, call('GET', '/api/profiles', undefined, narrow)],
      ['get_profiles', 401, call('GET', '/api/profiles', undefined, 'pk_not_a_key_at_all')],
      ['get_profiles', 400, call('GET', '/api/profiles?page[size]=101')],
      ['get_profiles_for_list', 400, call('GET', `/api/lists/${list}/profiles?filter=${encodeURIComponent('greater-than(updated,2020-01-01T00:00:00Z)')}`)],
    ];
    for (const [operationId, status, pending] of refusals) {
      const answer = await pending;
      expect({ operationId, status: answer.status }).toEqual({ operationId, status });
      expectDocumented(operationId, status, answer.body);
    }
    // The accounts endpoint allows 1 call a second: the second in the same second is throttled.
    const answers = await Promise.all([call('GET', '/api/accounts'), call('GET', '/api/accounts')]);
    const throttled = answers.find((a) => a.status === 429)!;
    expect(throttled).toBeDefined();
    expectDocumented('get_accounts', 429, throttled.body);
    const raw = await fetch(`${fake.url}/api/accounts`, { headers: { authorization: `Klaviyo-API-Key ${fake.apiKey}`, revision: pinnedRevision() } });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await raw.arrayBuffer();
  });

  it('refuses a call without the revision header', async () => {
    const res = await fetch(`${fake.url}/api/profiles`, { headers: { authorization: `Klaviyo-API-Key ${fake.apiKey}` } });
    expect(res.status).toBe(400);
    expectDocumented('get_profiles', 400, await res.json());
  });
});
