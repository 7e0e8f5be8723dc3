import { z } from 'zod';

/**
 * HubSpot's published request bodies, written out by hand from the public API spec collection
 * (Automation Actions V4 `v4` and `2026-03`): that collection is not licensed for reuse, so it is
 * not in this repository, and these schemas say what it says. Objects are strict: a member the
 * published schema does not define is refused, as is a member it marks required and is missing.
 */

const FIELD_TYPES = ['booleancheckbox', 'calculation_equation', 'checkbox', 'date', 'file', 'html', 'number', 'phonenumber', 'radio', 'select', 'text', 'textarea'] as const;
const OUTPUT_FIELD_TYPES = [...FIELD_TYPES, 'calculation_read_time', 'calculation_rollup', 'calculation_score', 'unknown'] as const;
const VALUE_TYPES = ['bool', 'date', 'datetime', 'enumeration', 'json', 'number', 'object_coordinates', 'phone_number', 'string'] as const;

/** `PublicOption`: an input field's option. */
const PublicOption = z.strictObject({ label: z.string(), value: z.string(), description: z.string().optional(), displayOrder: z.number().int().optional() });

/** `PublicFieldTypeDefinition`: the type of an input field (no `externalOptions`, no `schema`). */
const PublicFieldTypeDefinition = z.strictObject({
  name: z.string(),
  type: z.enum(VALUE_TYPES),
  options: z.array(PublicOption),
  fieldType: z.enum(FIELD_TYPES).optional(),
  description: z.string().optional(),
  helpText: z.string().optional(),
  label: z.string().optional(),
  optionsUrl: z.string().optional(),
  referencedObjectType: z.enum(['OWNER']).optional(),
});

const PublicInputFieldDefinition = z.strictObject({
  isRequired: z.boolean(),
  typeDefinition: PublicFieldTypeDefinition,
  supportedValueTypes: z.array(z.enum(['STATIC_VALUE', 'OBJECT_PROPERTY'])).optional(),
});

/** `Option`: an output field's option, every member required. */
const Option = z.strictObject({ description: z.string(), displayOrder: z.number().int(), doubleData: z.number(), hidden: z.boolean(), label: z.string(), readOnly: z.boolean(), value: z.string() });

/** The `schema` of an output field: one of the typed field schemas (those an output of this action can have). */
const FieldSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('STRING'), format: z.enum(['DATE', 'DATE_TIME', 'MONTH_AND_DAY', 'OBJECT_COORDINATE', 'TIME', 'URI']).optional() }),
  z.strictObject({ type: z.literal('DOUBLE'), minimum: z.number().optional(), maximum: z.number().optional() }),
  z.strictObject({ type: z.literal('INTEGER'), minimum: z.number().int().optional(), maximum: z.number().int().optional() }),
  z.strictObject({ type: z.literal('LONG'), minimum: z.number().int().optional(), maximum: z.number().int().optional() }),
  z.strictObject({ type: z.literal('BOOLEAN') }),
  z.strictObject({ type: z.literal('UNKNOWN') }),
]);

/** `FieldTypeDefinition`: the type of an output field (`externalOptions`, `name`, `options`, `schema`, `type`, `useChirp` required). */
const FieldTypeDefinition = z.strictObject({
  externalOptions: z.boolean(),
  name: z.string(),
  options: z.array(Option),
  schema: FieldSchema,
  type: z.enum([...VALUE_TYPES, 'currency_number']),
  useChirp: z.boolean(),
  fieldType: z.enum(OUTPUT_FIELD_TYPES).optional(),
  description: z.string().optional(),
  externalOptionsReferenceType: z.string().optional(),
  helpText: z.string().optional(),
  label: z.string().optional(),
  optionsUrl: z.string().optional(),
  referencedObjectType: z.string().optional(),
});

const PublicActionLabels = z.strictObject({
  actionName: z.string(),
  actionCardContent: z.string().optional(),
  actionDescription: z.string().optional(),
  appDisplayName: z.string().optional(),
  executionRules: z.record(z.string(), z.string()).optional(),
  inputFieldDescriptions: z.record(z.string(), z.string()).optional(),
  inputFieldLabels: z.record(z.string(), z.string()).optional(),
  inputFieldOptionLabels: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  outputFieldLabels: z.record(z.string(), z.string()).optional(),
});

const PublicExecutionTranslationRule = z.strictObject({ labelName: z.string(), conditions: z.record(z.string(), z.unknown()) });

const PublicActionFunction = z.strictObject({ functionSource: z.string(), functionType: z.enum(['POST_ACTION_EXECUTION', 'POST_FETCH_OPTIONS', 'PRE_ACTION_EXECUTION', 'PRE_FETCH_OPTIONS']), id: z.string().optional() });

/** `PublicActionDefinitionEgg`: the body of `POST /automation/v4/actions/{appId}`. */
export const PublicActionDefinitionEgg = z.strictObject({
  actionUrl: z.string(),
  functions: z.array(PublicActionFunction),
  inputFields: z.array(PublicInputFieldDefinition),
  labels: z.record(z.string(), PublicActionLabels),
  objectTypes: z.array(z.string()),
  published: z.boolean(),
  archivedAt: z.number().int().optional(),
  executionRules: z.array(PublicExecutionTranslationRule).optional(),
  inputFieldDependencies: z.array(z.record(z.string(), z.unknown())).optional(),
  objectRequestOptions: z.strictObject({ properties: z.array(z.string()) }).optional(),
  outputFields: z.array(z.strictObject({ typeDefinition: FieldTypeDefinition })).optional(),
});

const RequestContext = z.looseObject({ source: z.enum(['WORKFLOWS', 'AGENTS', 'COPILOT', 'STANDALONE', 'TEST']) });

/** `CallbackCompletionRequest`: `outputFields` (strings) and `typedOutputs` both required. */
export const CallbackCompletionRequest = z.strictObject({
  outputFields: z.record(z.string(), z.string()),
  typedOutputs: z.record(z.string(), z.unknown()),
  failureReasonType: z.string().optional(),
  requestContext: RequestContext.optional(),
});

/** `BatchInputCallbackCompletionBatchRequest`: the body of `POST /automation/v4/actions/callbacks/complete`. */
export const BatchInputCallbackCompletionBatchRequest = z.strictObject({
  inputs: z.array(CallbackCompletionRequest.extend({ callbackId: z.string().min(1) })),
});

/** The first problem of a failed parse, as `path: message` (HubSpot names the field too). */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join('.') || 'body'}: ${issue.message}`;
}

/*
 * CRM: Contacts v3, Properties v3 and Lists v3, the operations the connector calls. Two members are
 * read as HubSpot's search guide shows them rather than as the generated schema marks them (listed in
 * connectors/hubspot/README.md): `after` (marked required; the guide's first page has none) and
 * `sorts` (typed as strings; the guide sends `{ propertyName, direction }`).
 */
const FILTER_OPERATORS = ['BETWEEN', 'CONTAINS_TOKEN', 'EQ', 'GT', 'GTE', 'HAS_PROPERTY', 'IN', 'LT', 'LTE', 'NEQ', 'NOT_CONTAINS_TOKEN', 'NOT_HAS_PROPERTY', 'NOT_IN'] as const;
const Filter = z.strictObject({ propertyName: z.string(), operator: z.enum(FILTER_OPERATORS), value: z.string().optional(), values: z.array(z.string()).optional(), highValue: z.string().optional() });
const SearchSort = z.union([z.string(), z.strictObject({ propertyName: z.string(), direction: z.enum(['ASCENDING', 'DESCENDING']) })]);

/** `PublicObjectSearchRequest`: `POST /crm/v3/objects/contacts/search`. */
export const PublicObjectSearchRequest = z.strictObject({
  after: z.string().optional(),
  filterGroups: z.array(z.strictObject({ filters: z.array(Filter) })).max(6),
  limit: z.number().int().min(1).max(200),
  properties: z.array(z.string()),
  query: z.string().max(3000).optional(),
  sorts: z.array(SearchSort),
});

/** `BatchReadInputSimplePublicObjectId`: `POST /crm/v3/objects/contacts/batch/read`. */
export const BatchReadInputSimplePublicObjectId = z.strictObject({
  idProperty: z.string().optional(),
  inputs: z.array(z.strictObject({ id: z.string() })),
  properties: z.array(z.string()),
  propertiesWithHistory: z.array(z.string()),
});

/** `BatchInputSimplePublicObjectBatchInput`: `POST /crm/v3/objects/contacts/batch/update` (property values are strings). */
export const BatchInputSimplePublicObjectBatchInput = z.strictObject({
  inputs: z.array(z.strictObject({ id: z.string(), idProperty: z.string().optional(), objectWriteTraceId: z.string().optional(), properties: z.record(z.string(), z.string()) })),
});

/** `PropertyGroupCreate`: `POST /crm/v3/properties/{objectType}/groups`. */
export const PropertyGroupCreate = z.strictObject({ name: z.string(), label: z.string(), displayOrder: z.number().int().optional() });

/** `PropertyCreate` (with `OptionInput`): `POST /crm/v3/properties/{objectType}`. */
export const PropertyCreate = z.strictObject({
  name: z.string(),
  label: z.string(),
  groupName: z.string(),
  type: z.enum(['bool', 'date', 'datetime', 'enumeration', 'number', 'phone_number', 'string']),
  fieldType: z.enum(FIELD_TYPES),
  calculationFormula: z.string().optional(),
  currencyPropertyName: z.string().optional(),
  dataSensitivity: z.enum(['highly_sensitive', 'non_sensitive', 'sensitive']).optional(),
  description: z.string().optional(),
  displayOrder: z.number().int().optional(),
  externalOptions: z.boolean().optional(),
  formField: z.boolean().optional(),
  hasUniqueValue: z.boolean().optional(),
  hidden: z.boolean().optional(),
  numberDisplayHint: z.enum(['currency', 'duration', 'formatted', 'percentage', 'probability', 'unformatted']).optional(),
  options: z.array(z.strictObject({ label: z.string(), value: z.string(), hidden: z.boolean(), description: z.string().optional(), displayOrder: z.number().int().optional() })).optional(),
  referencedObjectType: z.string().optional(),
  showCurrencySymbol: z.boolean().optional(),
  textDisplayHint: z.enum(['domain_name', 'email', 'ip_address', 'multi_line', 'phone_number', 'physical_address', 'postal_code', 'unformatted_single_line']).optional(),
});

/** A published CRM operation: its query parameters (any other is refused) and its request body. */
export interface PublishedOperation {
  name: string;
  method: 'GET' | 'POST';
  path: RegExp;
  query: string[];
  body?: z.ZodType;
}

/** Every CRM operation the connector calls and FakeHubSpot serves, as published. */
export const CRM_OPERATIONS: PublishedOperation[] = [
  { name: 'account details', method: 'GET', path: /^\/account-info\/v3\/details$/, query: [] },
  { name: 'custom property limits', method: 'GET', path: /^\/crm\/v3\/limits\/custom-properties$/, query: [] },
  { name: 'list property groups', method: 'GET', path: /^\/crm\/v3\/properties\/contacts\/groups$/, query: ['locale'] },
  { name: 'create property group', method: 'POST', path: /^\/crm\/v3\/properties\/contacts\/groups$/, query: [], body: PropertyGroupCreate },
  { name: 'list properties', method: 'GET', path: /^\/crm\/v3\/properties\/contacts$/, query: ['archived', 'dataSensitivity', 'locale', 'properties'] },
  { name: 'create property', method: 'POST', path: /^\/crm\/v3\/properties\/contacts$/, query: [], body: PropertyCreate },
  { name: 'list contacts', method: 'GET', path: /^\/crm\/v3\/objects\/contacts$/, query: ['after', 'archived', 'associations', 'limit', 'properties', 'propertiesWithHistory'] },
  { name: 'search contacts', method: 'POST', path: /^\/crm\/v3\/objects\/contacts\/search$/, query: [], body: PublicObjectSearchRequest },
  { name: 'batch read contacts', method: 'POST', path: /^\/crm\/v3\/objects\/contacts\/batch\/read$/, query: ['archived'], body: BatchReadInputSimplePublicObjectId },
  { name: 'batch update contacts', method: 'POST', path: /^\/crm\/v3\/objects\/contacts\/batch\/update$/, query: [], body: BatchInputSimplePublicObjectBatchInput },
  { name: 'list memberships', method: 'GET', path: /^\/crm\/v3\/lists\/[^/]+\/memberships$/, query: ['after', 'before', 'limit'] },
  { name: 'get list', method: 'GET', path: /^\/crm\/v3\/lists\/[^/]+$/, query: ['includeFilters'] },
];

/** The first way a request breaks its published operation, or undefined when it conforms (or is not a CRM operation). */
export function unpublishedRequest(method: string, path: string, query: Record<string, unknown>, body: unknown): { operation: string; problem?: string } | undefined {
  const operation = CRM_OPERATIONS.find((o) => o.method === method && o.path.test(path));
  if (!operation) return undefined;
  const extra = Object.keys(query).find((name) => !operation.query.includes(name));
  if (extra) return { operation: operation.name, problem: `query: ${extra} is not a published parameter` };
  const parsed = operation.body?.safeParse(body);
  return { operation: operation.name, ...(parsed && !parsed.success ? { problem: firstProblem(parsed.error) } : {}) };
}
