import type * as Yaml from 'yaml';

/** The parts of a Postman collection (format v2.1) this module touches. */
export interface PostmanCollection {
  info: { name: string; schema: string };
  item: PostmanItem[];
  auth?: { type: string; apikey?: { key: string; value: string }[] };
  variable?: { key: string; value: string; type?: string; description?: string }[];
  [key: string]: unknown;
}
interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: { method: string; url: { path?: string[] }; header?: { key: string; value: string }[]; auth?: unknown };
  [key: string]: unknown;
}

/** The collection variable the API-key authentication sends; it has no value in the collection. */
export const POSTMAN_API_KEY_VARIABLE = 'apiKey';

/**
 * The Postman collection of the API, generated from the OpenAPI description with openapi-to-postmanv2
 * (folders by tag, request values from the description's examples). The converter makes `X-API-Key` a
 * collection-level API-key authentication whose value is `{{apiKey}}`; this declares that variable with
 * no value (the key belongs in a Postman environment, never in a shared collection) and marks the
 * operations the description leaves unauthenticated (`security: []`) as sending no key.
 */
export async function postmanCollection(openapiYaml: string): Promise<PostmanCollection> {
  // Loaded on the first request for it: the converter is about 11 MB of heap in every process that imports the engine.
  const { convertV2 } = await import('openapi-to-postmanv2');
  const collection = await new Promise<PostmanCollection>((resolve, reject) => {
    convertV2({ type: 'string', data: openapiYaml }, { folderStrategy: 'Tags', parametersResolution: 'Example' }, (error, result) => {
      const data = result?.result ? result.output?.[0]?.data : undefined;
      if (error || !data) reject(new Error(`openapi-to-postmanv2: ${error?.message ?? result?.reason ?? 'no collection'}`));
      else resolve(data as PostmanCollection);
    });
  });
  const { parse } = require('yaml') as typeof Yaml; // with the converter, for the same reason
  const doc = parse(openapiYaml) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  const open = new Set<string>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) if (Array.isArray(operation.security) && operation.security.length === 0) open.add(`${method.toUpperCase()} ${path}`);
  }
  const visit = (items: PostmanItem[]) => {
    for (const item of items) {
      if (item.item) visit(item.item);
      const request = item.request;
      if (request && open.has(`${request.method} /${(request.url.path ?? []).join('/')}`)) request.auth = { type: 'noauth' };
    }
  };
  visit(collection.item);
  collection.variable = [
    ...(collection.variable ?? []).filter((v) => v.key !== POSTMAN_API_KEY_VARIABLE),
    { key: POSTMAN_API_KEY_VARIABLE, value: '', type: 'string', description: 'Your API key: set it in a Postman environment, not here.' },
  ];
  return collection;
}
