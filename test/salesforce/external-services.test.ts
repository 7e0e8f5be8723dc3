import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { parse } from 'yaml';
import { EXTERNAL_SERVICES_DESCRIPTION_PATH, LocalEngine, OPENAPI_PATH, externalServicesDescription, startEngineServer, type EngineServer } from '@verify-hub/engine';
import { EXTERNAL_SERVICES_RULES, externalServicesProblems, type ExternalServicesRule } from '@verify-hub/connector-salesforce';
import { EngineContract } from '../engine/openapi-contract';

// The validator is a dev dependency of the engine workspace, installed under engine/node_modules.
const SwaggerParser = require(require.resolve('@apidevtools/swagger-parser', { paths: [join(__dirname, '..', '..', 'engine')] })) as {
  validate(api: unknown): Promise<unknown>;
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const engineYaml = readFileSync(OPENAPI_PATH, 'utf8');
const variant = () => externalServicesDescription(engineYaml) as Json;
const rulesOf = (doc: unknown) => [...new Set(externalServicesProblems(doc).map((p) => p.rule))].sort();

describe('Salesforce External Services: the engine description a Flow action is registered from', () => {
  it('the engine\'s full description breaks External Services\' rules (response headers, a YAML answer): that is why a variant is served', () => {
    const problems = externalServicesProblems(parse(engineYaml));
    expect(rulesOf(parse(engineYaml))).toEqual(['media-types', 'no-response-headers']);
    expect(problems).toContainEqual(expect.objectContaining({ rule: 'no-response-headers', at: '/paths/~1api~1v1~1verify/get/responses/200/headers' }));
    expect(problems).toContainEqual(expect.objectContaining({ rule: 'media-types', at: '/paths/~1openapi.yaml/get/responses/200/content/application~1yaml' }));
  });

  it('the variant keeps every External Services rule and is a valid OpenAPI 3.0 document', async () => {
    const doc = variant();
    expect(externalServicesProblems(doc)).toEqual([]);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/verify']);
    expect(doc.paths['/api/v1/verify'].get.operationId).toBe('verifyEmail');
  });

  it('the variant changes no wire format: the same operation, parameters and answer bodies as openapi.yaml', () => {
    const full = new EngineContract().document as Json;
    const reduced = new EngineContract(JSON.stringify(variant())).document as Json;
    const [a, b] = [full.paths['/api/v1/verify'].get, reduced.paths['/api/v1/verify'].get];
    expect(b.parameters).toEqual(a.parameters);
    expect(Object.keys(b.responses)).toEqual(Object.keys(a.responses));
    for (const status of Object.keys(a.responses)) {
      expect(b.responses[status].content).toEqual(a.responses[status].content);
      expect(b.responses[status].headers).toBeUndefined();
    }
  });

  describe('the checker fails a description that breaks a rule (each rule, on a mutated copy of the variant)', () => {
    const schemas = (doc: Json) => doc.components.schemas;
    const verify = (doc: Json) => doc.paths['/api/v1/verify'].get;
    const mutations: [ExternalServicesRule, (doc: Json) => void][] = [
      ['version', (doc) => (doc.openapi = '3.1.0')],
      ['methods', (doc) => (doc.paths['/api/v1/verify'].head = { operationId: 'verifyHead', responses: { 200: { description: 'ok' } } })],
      ['get-without-body', (doc) => (verify(doc).requestBody = { content: { 'application/json': { schema: { type: 'object', properties: { email: { type: 'string' } } } } } })],
      ['operation-id', (doc) => delete verify(doc).operationId],
      ['parameter-name', (doc) => delete verify(doc).parameters[0].name],
      ['no-response-headers', (doc) => (verify(doc).responses['200'].headers = { 'X-RateLimit-Limit': { schema: { type: 'integer' } } })],
      ['media-types', (doc) => (verify(doc).responses['200'].content['application/xml'] = { schema: { type: 'string' } })],
      ['no-not', (doc) => (schemas(doc).VerificationResult.properties.email.not = { type: 'integer' })],
      ['property-value', (doc) => (schemas(doc).VerificationResult.properties.extra = { description: 'a field with no type' })],
      ['names-case', (doc) => (schemas(doc).VerificationResult.properties.Email = { type: 'string', description: 'the same name in another case' })],
      ['description-length', (doc) => (verify(doc).description = 'x'.repeat(1334))],
      ['nested-anonymous-array', (doc) => (schemas(doc).VerificationResult.properties.pairs = { type: 'array', items: { type: 'array', items: { type: 'string' } } })],
      ['refs', (doc) => (schemas(doc).VerificationResult.properties.deliverability = { $ref: '#/components/schemas/Nowhere' })],
    ];

    it.each(mutations)('%s', (rule, mutate) => {
      const doc = variant();
      mutate(doc);
      expect(rulesOf(doc)).toEqual([rule]);
    });

    it('every rule has a mutation here', () => {
      expect([...mutations.map(([rule]) => rule), 'composition'].sort()).toEqual(Object.keys(EXTERNAL_SERVICES_RULES).sort());
    });

    it('composition: OpenAPI 2.0 has allOf only', () => {
      const body = (schema: Json) => ({
        swagger: '2.0',
        info: { title: 't', version: '1' },
        paths: { '/check': { post: { operationId: 'check', consumes: ['application/json'], parameters: [{ in: 'body', name: 'body', schema }], responses: { 200: { description: 'ok' } } } } },
      });
      expect(rulesOf(body({ allOf: [{ type: 'object', properties: { a: { type: 'string' } } }] }))).toEqual([]);
      expect(rulesOf(body({ oneOf: [{ type: 'string' }, { type: 'integer' }] }))).toEqual(['composition']);
    });
  });

  describe('served by the engine', () => {
    let redis: Redis;
    let server: EngineServer;
    const prefix = `test:es:${randomUUID()}:`;

    beforeAll(async () => {
      redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      // Reserved domains are answered without DNS or SMTP: no mail world is needed.
      server = await startEngineServer({ port: 0, redis, keyPrefix: prefix, verifier: new LocalEngine({}), defaultLimits: { ratePerSecond: 50, monthlyQuota: 100 } });
    });
    afterAll(async () => {
      await server?.close();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    });

    it(`GET ${EXTERNAL_SERVICES_DESCRIPTION_PATH} answers the variant as JSON, with no key`, async () => {
      const res = await fetch(`${server.url}${EXTERNAL_SERVICES_DESCRIPTION_PATH}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const served = (await res.json()) as Json;
      expect(served).toEqual(variant());
      expect(externalServicesProblems(served)).toEqual([]);
    });

    it('a call the way the Flow action makes it (the Named Credential adds X-API-Key) is answered as the variant describes', async () => {
      const { key } = await server.store.createKey({ name: 'salesforce flow', account: 'sf' });
      const res = await fetch(`${server.url}/api/v1/verify?email=${encodeURIComponent('x@example.com')}`, { headers: { 'X-API-Key': key } });
      const text = await res.text();
      const contract = new EngineContract(JSON.stringify(variant()));
      expect(contract.check('GET', '/api/v1/verify', res.status, (name) => res.headers.get(name), text)).toEqual([]);
      expect(JSON.parse(text)).toMatchObject({ risk: 'invalid', reason: 'reserved_domain' });
      const refused = await fetch(`${server.url}/api/v1/verify?email=x%40example.com`);
      expect(contract.check('GET', '/api/v1/verify', refused.status, (name) => refused.headers.get(name), await refused.text())).toEqual([]);
      expect(refused.status).toBe(401);
    });
  });
});
