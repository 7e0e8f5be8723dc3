import { parse } from 'yaml';

/** Where the engine serves it (GET, no key: it is a description, like /openapi.yaml). */
export const EXTERNAL_SERVICES_DESCRIPTION_PATH = '/openapi.external-services.json';

const VERIFY_PATH = '/api/v1/verify';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The engine's description as Salesforce External Services registers it, for a Flow action "Verify
 * email" (docs/salesforce-flow-action.md): the verify operation alone, word for word (its path, its
 * `email` and `Idempotency-Key` parameters, every answer's body schema), without what External Services
 * refuses: response headers (the rate-limit and quota headers are still sent; a Flow cannot read
 * them) and the non-JSON operations (/openapi.yaml is `application/yaml`). Tags, servers and security
 * are left out too: External Services ignores them and takes the URL and the X-API-Key header from the
 * Named Credential. Only the components the operation uses are kept. The wire format does not change:
 * a client of either description sends and reads the same bytes.
 */
export function externalServicesDescription(openapiYaml: string): Json {
  const doc = parse(openapiYaml) as Json;
  const paths = doc.paths as Record<string, Json>;
  const verify = structuredClone(paths[VERIFY_PATH]?.get) as Json | undefined;
  if (!isObject(verify)) throw new Error(`the engine's description has no GET ${VERIFY_PATH}`);
  delete verify.tags;
  delete verify.security;
  for (const response of Object.values(verify.responses as Record<string, Json>)) delete response.headers;
  const info = doc.info as Json;
  const components = doc.components as Record<string, Record<string, unknown>>;
  const used = usedComponents(verify, components);
  const kept: Record<string, Json> = {};
  for (const [section, names] of used) kept[section] = Object.fromEntries([...names].sort().map((name) => [name, components[section]![name]]));
  return {
    openapi: doc.openapi,
    info: {
      title: 'verify-hub email verification',
      version: info.version,
      description:
        "The engine's verify operation for Salesforce External Services (a Flow action \"Verify email\"). The same operation as the engine's /openapi.yaml, without its response headers and its other operations; authentication (the X-API-Key header) comes from the Named Credential.",
      license: info.license,
    },
    paths: { [VERIFY_PATH]: { get: verify } },
    components: kept,
  };
}

/** The components a node refers to, transitively, by section (`schemas`, `examples`, ...). */
function usedComponents(root: unknown, components: Record<string, Record<string, unknown>>): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    const ref = typeof node.$ref === 'string' ? /^#\/components\/([^/]+)\/([^/]+)$/.exec(node.$ref) : null;
    if (ref) {
      const [, section, name] = ref as unknown as [string, string, string];
      const names = used.get(section) ?? used.set(section, new Set()).get(section)!;
      if (!names.has(name)) {
        names.add(name);
        visit(components[section]?.[name]);
      }
    }
    Object.values(node).forEach(visit);
  };
  visit(root);
  return used;
}
