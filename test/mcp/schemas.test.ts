import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startMcpHttpServer, type StandaloneMcpServer } from '@verify-hub/mcp';
import { connectHttp } from './helpers';

/**
 * Every schema the server lists must pass single-type JSON-schema dialects (some assistants' function
 * calling): no type arrays, no null type, and a description on every property, nested ones included.
 */
function problems(schema: unknown, path: string): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const s = schema as Record<string, unknown>;
  const found: string[] = [];
  if (Array.isArray(s.type)) found.push(`${path}: type array ${JSON.stringify(s.type)}`);
  if (s.type === 'null') found.push(`${path}: null type`);
  if (s.nullable !== undefined) found.push(`${path}: nullable`);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) (s[key] as unknown[]).forEach((sub, i) => found.push(...problems(sub, `${path}.${key}[${i}]`)));
  }
  if (s.properties && typeof s.properties === 'object') {
    for (const [name, sub] of Object.entries(s.properties as Record<string, unknown>)) {
      const described = sub && typeof sub === 'object' && typeof (sub as { description?: unknown }).description === 'string' && (sub as { description: string }).description.trim().length > 0;
      if (!described) found.push(`${path}.${name}: no description`);
      found.push(...problems(sub, `${path}.${name}`));
    }
  }
  if (s.items) found.push(...problems(s.items, `${path}[]`));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') found.push(...problems(s.additionalProperties, `${path}{*}`));
  return found;
}

describe('MCP tool schemas are portable (tools/list from the SDK client)', () => {
  let mcp: StandaloneMcpServer;
  let client: Client;

  beforeAll(async () => {
    mcp = await startMcpHttpServer({ port: 0, engineUrl: 'http://127.0.0.1:9' });
    client = await connectHttp(mcp.url, { 'X-API-Key': 'any-key-lists-tools' });
  });

  afterAll(async () => {
    await client.close();
    await mcp.close();
  });

  test('every input and output schema: single types, no null, every field described', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(3);
    const found = tools.flatMap((t) => [...problems(t.inputSchema, `${t.name}.input`), ...problems(t.outputSchema, `${t.name}.output`)]);
    expect(found).toEqual([]);
  });

  test('the walker itself catches what it is meant to catch', () => {
    expect(problems({ type: 'object', properties: { a: { type: ['boolean', 'null'], description: 'x' }, b: { type: 'string' } } }, 's')).toEqual(['s.a: type array ["boolean","null"]', 's.b: no description']);
    expect(problems({ type: 'object', properties: { c: { description: 'y', anyOf: [{ type: 'string' }, { type: 'null' }] } } }, 's')).toEqual(['s.c.anyOf[1]: null type']);
    expect(problems({ type: 'array', items: { type: 'object', properties: { d: { type: 'object', description: 'z', properties: { e: { type: 'number' } } } } } }, 's')).toEqual(['s[].d.e: no description']);
  });

  test('annotations: verify tools are read-only, open-world and not idempotent (each call bills); explain_result is closed and idempotent', async () => {
    const { tools } = await client.listTools();
    const by = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const name of ['verify_email', 'verify_emails']) expect(by[name]).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(by.explain_result).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });
});
