import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { OPENAPI_PATH } from '@verify-hub/engine';

/**
 * Checks the engine's HTTP answers against engine/openapi.yaml: the status is one the operation
 * describes, every header the description marks required is there with a value of its schema, and the
 * JSON body validates (ajv, OpenAPI 3.0 `nullable` included) against the response schema, made strict:
 * an object may not carry a field the description does not name, so "every field documented" is tested.
 */

type Json = Record<string, unknown>;
interface HeaderObject { required?: boolean; schema: Json }
interface ResponseObject { headers?: Record<string, HeaderObject>; content?: Record<string, { schema: Json }> }
interface Operation { responses: Record<string, ResponseObject> }
interface OpenApi { paths: Record<string, Record<string, Operation>>; components: Json }

export interface CheckedAnswer {
  method: string;
  path: string;
  status: number;
  problems: string[];
}

/** The description with every local `$ref` replaced by what it points at (the document has no cycles). */
function dereference(node: unknown, root: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => dereference(n, root));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string') {
    const target = ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
    if (target === undefined) throw new Error(`openapi.yaml: unresolved ${ref}`);
    return dereference(target, root);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(v, root)]));
}

/** Objects that list their properties and say nothing of others get `additionalProperties: false`. */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : strict(v)]));
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

export class EngineContract {
  readonly document: OpenApi;
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(yamlText = readFileSync(OPENAPI_PATH, 'utf8')) {
    const raw = parse(yamlText) as unknown;
    this.document = dereference(raw, raw) as OpenApi;
    this.ajv = new Ajv({ strict: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addVocabulary(['example']);
  }

  /** The problems of one answer (empty when the description describes it exactly). */
  check(method: string, path: string, status: number, header: (name: string) => string | null | undefined, text: string): string[] {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${path} is not in the description`];
    const response = operation.responses[String(status)];
    if (!response) return [`${method} ${path} answered ${status}, which the description does not list`];
    const problems: string[] = [];
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      const value = header(name);
      if (value === null || value === undefined) {
        if (h.required) problems.push(`header ${name} is missing`);
        continue;
      }
      const typed = h.schema.type === 'integer' || h.schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
      const validate = this.validator(`header ${name}`, h.schema);
      if (!validate(typed)) problems.push(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    const contentType = (header('content-type') ?? '').split(';')[0]!.trim();
    const media = response.content?.[contentType];
    if (!media) return [...problems, `content type ${JSON.stringify(contentType)} is not described for ${status}`];
    if (contentType !== 'application/json') return problems;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [...problems, 'the body is not JSON'];
    }
    const validate = this.validator(`${method} ${path} ${status}`, strict(media.schema) as Json);
    if (!validate(body)) {
      for (const e of validate.errors ?? []) problems.push(`body${e.instancePath || ''} ${e.message}${e.keyword === 'additionalProperties' ? `: ${String(e.params.additionalProperty)}` : ''}`);
    }
    return problems;
  }

  private validator(key: string, schema: Json): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(schema);
      this.compiled.set(key, v);
    }
    return v;
  }
}

export interface ValidatingProxy {
  /** Send requests here instead of to the engine. */
  url: string;
  /** Every answer that passed through, with its problems. */
  answers: CheckedAnswer[];
  /** The answers the description does not describe. */
  invalid(): CheckedAnswer[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * A pass-through HTTP proxy in front of an engine server: every answer is checked against the
 * description on its way back, so tests (and core's EngineClient inside them) talk to the engine as
 * usual while every answer they get is validated.
 */
export async function validatingProxy(target: string, contract = new EngineContract()): Promise<ValidatingProxy> {
  const answers: CheckedAnswer[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const upstream = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers: forwardable(req.headers) });
      const text = await upstream.text();
      const path = new URL(req.url ?? '/', target).pathname;
      answers.push({ method: req.method ?? 'GET', path, status: upstream.status, problems: contract.check(req.method ?? 'GET', path, upstream.status, (n) => upstream.headers.get(n), text) });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') headers[name] = value;
      });
      res.writeHead(upstream.status, headers).end(text);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${String(error)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    answers,
    invalid: () => answers.filter((a) => a.problems.length > 0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
