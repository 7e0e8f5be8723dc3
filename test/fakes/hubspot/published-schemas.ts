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
