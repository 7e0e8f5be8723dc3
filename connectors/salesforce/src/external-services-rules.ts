/**
 * Salesforce External Services' import rules for an OpenAPI description, as a checker: what the
 * registration wizard refuses, and what would register but give a Flow action an admin cannot use.
 * Each rule names the Salesforce Help page it comes from ("External Services Considerations": OpenAPI
 * 2.0 and 3.0 Support, Schema Definitions, Naming and Description Conventions, Operation Output
 * Parameters, Media Type Directives). What Salesforce documents as *ignored* (security schemes and
 * requirements, tags, external docs, `servers`, discriminator mappings) is not a rule: a description may
 * carry it. Apex reserved words and characters outside Apex identifiers are not rules either: External
 * Services encodes them (`type` becomes `z0type`) and calls the service with the original names.
 */
export interface ExternalServicesProblem {
  rule: ExternalServicesRule;
  /** JSON pointer into the description. */
  at: string;
  message: string;
}

export const EXTERNAL_SERVICES_RULES = {
  version: 'OpenAPI 2.0 (`swagger: "2.0"`) or 3.0 (`openapi: 3.0.x`); 3.1 is not supported',
  methods: 'operations use GET, PATCH, PUT, POST or DELETE only',
  'get-without-body': 'a GET operation has no request body (it is a validation error)',
  'operation-id': 'every operation has an operationId (the Flow action\'s name), unique whatever the case',
  'parameter-name': 'every parameter has a name and a place (`in`)',
  'no-response-headers': 'response headers are not supported',
  'media-types': 'request bodies are application/json, application/x-www-form-urlencoded or text/plain; responses also application/octet-stream',
  'no-not': 'the composite keyword `not` is not supported',
  composition: 'OpenAPI 2.0 has allOf only (anyOf and oneOf are OpenAPI 3.0)',
  'property-value': 'every property has a schema with a value (a type, a $ref or a composition)',
  'names-case': 'names are used with one case: no two properties of an object, parameters of an operation or named schemas differ only in case (Apex names ignore case)',
  'description-length': 'operation and parameter descriptions are at most 1,333 characters (longer ones are cut)',
  'nested-anonymous-array': 'no anonymous array directly inside an array (List<List<T>> cannot be a Flow field)',
  refs: 'every $ref points inside the document and resolves',
} as const;
export type ExternalServicesRule = keyof typeof EXTERNAL_SERVICES_RULES;

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const NOT_METHODS = ['head', 'options', 'trace'];
const REQUEST_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];
const RESPONSE_TYPES = [...REQUEST_TYPES, 'application/octet-stream'];
const DESCRIPTION_MAX = 1333;
const SCHEMA_VALUE_KEYS = ['type', '$ref', 'allOf', 'anyOf', 'oneOf', 'properties', 'items', 'enum', 'additionalProperties'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const pointer = (...parts: (string | number)[]) => parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Every problem the description has under External Services' rules; an empty list when it registers as is. */
export function externalServicesProblems(description: unknown): ExternalServicesProblem[] {
  const problems: ExternalServicesProblem[] = [];
  const report = (rule: ExternalServicesRule, at: string, message: string) => problems.push({ rule, at, message });
  if (!isObject(description)) return [{ rule: 'version', at: '', message: 'the description is not an object' }];
  const doc = description;
  const v2 = doc.swagger === '2.0';
  if (!v2 && !(typeof doc.openapi === 'string' && /^3\.0\.\d+$/.test(doc.openapi))) {
    report('version', '/openapi', `version ${JSON.stringify(doc.openapi ?? doc.swagger)} is not OpenAPI 2.0 or 3.0`);
  }
  const resolve = (value: unknown): unknown => {
    if (!isObject(value) || typeof value.$ref !== 'string' || !value.$ref.startsWith('#/')) return value;
    return value.$ref.slice(2).split('/').reduce<unknown>((node, part) => (isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  };

  // $refs: local and resolvable, wherever they are.
  const walkRefs = (node: unknown, at: string) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walkRefs(item, `${at}/${i}`));
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith('#/')) report('refs', at, `$ref "${node.$ref}" points outside the document`);
      else if (resolve(node) === undefined) report('refs', at, `$ref "${node.$ref}" does not resolve`);
    }
    for (const [key, value] of Object.entries(node)) walkRefs(value, `${at}/${pointer(key)}`);
  };
  walkRefs(doc, '');

  // Schemas: each one once, by where it is written (a $ref is checked where it points).
  const schema = (node: unknown, at: string) => {
    if (!isObject(node) || typeof node.$ref === 'string') return;
    if ('not' in node) report('no-not', at, 'uses `not`');
    if (v2 && ('anyOf' in node || 'oneOf' in node)) report('composition', at, `uses ${'anyOf' in node ? 'anyOf' : 'oneOf'} in an OpenAPI 2.0 description`);
    if (isObject(node.items) && node.items.$ref === undefined && node.items.type === 'array') report('nested-anonymous-array', `${at}/items`, 'an anonymous array inside an array');
    if (node.properties !== undefined) {
      const seen = new Map<string, string>();
      for (const [name, property] of Object.entries(isObject(node.properties) ? node.properties : {})) {
        const where = `${at}/properties/${pointer(name)}`;
        if (!isObject(property) || !SCHEMA_VALUE_KEYS.some((key) => key in property)) report('property-value', where, `property "${name}" has no schema value`);
        const other = seen.get(name.toLowerCase());
        if (other) report('names-case', where, `property "${name}" differs from "${other}" only in case`);
        seen.set(name.toLowerCase(), name);
        schema(property, where);
      }
    }
    for (const key of ['items', 'additionalProperties', 'not']) schema(node[key], `${at}/${key}`);
    for (const key of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((s, i) => schema(s, `${at}/${key}/${i}`));
  };

  const named = (v2 ? doc.definitions : isObject(doc.components) ? doc.components.schemas : undefined) ?? {};
  const namesAt = v2 ? '/definitions' : '/components/schemas';
  const schemaNames = new Map<string, string>();
  for (const [name, s] of Object.entries(isObject(named) ? named : {})) {
    const other = schemaNames.get(name.toLowerCase());
    if (other) report('names-case', `${namesAt}/${pointer(name)}`, `schema "${name}" differs from "${other}" only in case`);
    schemaNames.set(name.toLowerCase(), name);
    schema(s, `${namesAt}/${pointer(name)}`);
  }

  const operationIds = new Map<string, string>();
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = resolve(rawItem);
    if (!isObject(item)) continue;
    for (const method of NOT_METHODS) if (method in item) report('methods', `/paths/${pointer(path, method)}`, `${method.toUpperCase()} ${path} is not a supported method`);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `/paths/${pointer(path, method)}`;
      const name = `${method.toUpperCase()} ${path}`;
      if (typeof operation.operationId !== 'string' || !operation.operationId) report('operation-id', at, `${name} has no operationId`);
      else {
        const other = operationIds.get(operation.operationId.toLowerCase());
        if (other) report('operation-id', `${at}/operationId`, `operationId "${operation.operationId}" repeats "${other}"`);
        operationIds.set(operation.operationId.toLowerCase(), operation.operationId);
      }
      for (const key of ['description', 'summary']) {
        const text = operation[key];
        if (typeof text === 'string' && text.length > DESCRIPTION_MAX) report('description-length', `${at}/${key}`, `${name}: ${key} of ${text.length} characters (at most ${DESCRIPTION_MAX})`);
      }
      const parameters = [...(Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
      const parameterNames = new Map<string, string>();
      parameters.forEach((raw, i) => {
        const parameter = resolve(raw);
        const where = `${at}/parameters/${i}`;
        if (!isObject(parameter)) return;
        if (typeof parameter.name !== 'string' || !parameter.name || typeof parameter.in !== 'string') return report('parameter-name', where, `${name}: a parameter without a name or \`in\``);
        const other = parameterNames.get(parameter.name.toLowerCase());
        if (other) report('names-case', where, `${name}: parameter "${parameter.name}" differs from "${other}" only in case`);
        parameterNames.set(parameter.name.toLowerCase(), parameter.name);
        if (typeof parameter.description === 'string' && parameter.description.length > DESCRIPTION_MAX) report('description-length', `${where}/description`, `${name}: parameter "${parameter.name}" description of ${parameter.description.length} characters (at most ${DESCRIPTION_MAX})`);
        if (method === 'get' && parameter.in === 'body') report('get-without-body', where, `${name} has a body parameter`);
        schema(parameter.schema, `${where}/schema`);
      });
      if (v2) {
        for (const [key, allowed] of [['consumes', REQUEST_TYPES], ['produces', RESPONSE_TYPES]] as const) {
          for (const type of [...asList(doc[key]), ...asList(operation[key])]) if (!allowed.includes(baseType(type))) report('media-types', `${at}/${key}`, `${name}: media type ${type} is not supported`);
        }
      } else if (operation.requestBody !== undefined) {
        if (method === 'get') report('get-without-body', `${at}/requestBody`, `${name} has a request body`);
        const body = resolve(operation.requestBody);
        for (const [type, media] of Object.entries(isObject(body) && isObject(body.content) ? body.content : {})) {
          if (!REQUEST_TYPES.includes(baseType(type))) report('media-types', `${at}/requestBody/content/${pointer(type)}`, `${name}: request media type ${type} is not supported`);
          if (isObject(media)) schema(media.schema, `${at}/requestBody/content/${pointer(type)}/schema`);
        }
      }
      for (const [status, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
        const response = resolve(raw);
        const where = `${at}/responses/${pointer(status)}`;
        if (!isObject(response)) continue;
        if (isObject(response.headers) && Object.keys(response.headers).length) report('no-response-headers', `${where}/headers`, `${name} ${status}: response headers ${Object.keys(response.headers).join(', ')}`);
        if (v2) schema(response.schema, `${where}/schema`);
        for (const [type, media] of Object.entries(isObject(response.content) ? response.content : {})) {
          if (!RESPONSE_TYPES.includes(baseType(type))) report('media-types', `${where}/content/${pointer(type)}`, `${name} ${status}: response media type ${type} is not supported`);
          if (isObject(media)) schema(media.schema, `${where}/content/${pointer(type)}/schema`);
        }
      }
    }
  }
  return problems;
}

function asList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** `application/json; charset=utf-8` as `application/json`. */
function baseType(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}
