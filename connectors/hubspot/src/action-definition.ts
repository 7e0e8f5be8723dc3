import { suggestedAddress, type Verification } from '@verify-hub/core';

/**
 * The workflow action "Verify email address", defined once. Both of HubSpot's ways of declaring it
 * are generated from here, so they cannot drift: the developer project's component
 * (`hubspot-project/src/app/workflow-actions/verify-email-hsmeta.json`, `type: "workflow-action"`,
 * the current platform) and the body of `POST /automation/v4/actions/{appId}` (legacy public apps).
 * The outputs a completion sends (`outputFields` as strings, `typedOutputs` as typed values) are built
 * from the same list.
 *
 * Where HubSpot's published schema and its guide differ, the schema wins and the reason is here:
 * - output fields carry every member `FieldTypeDefinition` marks required (`externalOptions`,
 *   `options`, `schema`, `useChirp`); the guide's examples leave `schema` and `useChirp` out, but a
 *   typed `schema` (STRING, DOUBLE 0-100) also describes what `typedOutputs` holds, and `useChirp`
 *   false changes nothing;
 * - the input field's type has no `externalOptions` (`PublicFieldTypeDefinition` does not define it);
 * - execution rule conditions are typed "object" in the schema (Java's Object: any value); the
 *   guide's conditions compare an output to a string, as here.
 */

export const FLAG_OUTPUTS = { is_disposable: 'disposable', is_role_account: 'roleAccount', is_catch_all: 'catchAll', is_free_provider: 'freeProvider' } as const;
/** A check's value as an output: "unknown" where the check was not made, never "false". */
export const FLAG_VALUES = ['true', 'false', 'unknown'] as const;
const RISK_VALUES = ['safe', 'risky', 'invalid', 'unknown'] as const;

/** The `errorCode` of a call from a portal the hub holds no connection for (the action fails, the workflow goes on). */
export const NOT_CONNECTED_ERROR = 'PORTAL_NOT_CONNECTED';

type OutputKind = { kind: 'enumeration'; values: readonly string[] } | { kind: 'number'; minimum: number; maximum: number } | { kind: 'text' };
interface OutputSpec {
  name: string;
  label: string;
  of: OutputKind;
}

const OUTPUTS: readonly OutputSpec[] = [
  { name: 'risk', label: 'Risk', of: { kind: 'enumeration', values: RISK_VALUES } },
  { name: 'score', label: 'Score (0-100)', of: { kind: 'number', minimum: 0, maximum: 100 } },
  { name: 'reason', label: 'Reason', of: { kind: 'text' } },
  { name: 'did_you_mean', label: 'Did you mean', of: { kind: 'text' } },
  { name: 'is_disposable', label: 'Disposable', of: { kind: 'enumeration', values: FLAG_VALUES } },
  { name: 'is_role_account', label: 'Role account', of: { kind: 'enumeration', values: FLAG_VALUES } },
  { name: 'is_catch_all', label: 'Catch-all domain', of: { kind: 'enumeration', values: FLAG_VALUES } },
  { name: 'is_free_provider', label: 'Free provider', of: { kind: 'enumeration', values: FLAG_VALUES } },
];

const ACTION_DESCRIPTION =
  'Checks the address with verify-hub and gives its risk (safe, risky, invalid or unknown), score, reason, a suggested correction and the checks, to branch on.';

/** HubSpot's `Option`: every member its schema marks required. */
function option(value: string, displayOrder: number) {
  return { label: value, value, displayOrder, hidden: false, description: '', readOnly: false, doubleData: 0 };
}

/** An output as HubSpot's `OutputFieldDefinition`. */
function outputField({ name, of }: OutputSpec) {
  const common = { name, externalOptions: false, useChirp: false };
  if (of.kind === 'enumeration') return { typeDefinition: { ...common, type: 'enumeration', fieldType: 'select', options: of.values.map(option), schema: { type: 'STRING' } } };
  if (of.kind === 'number') return { typeDefinition: { ...common, type: 'number', fieldType: 'number', options: [], schema: { type: 'DOUBLE', minimum: of.minimum, maximum: of.maximum } } };
  return { typeDefinition: { ...common, type: 'string', fieldType: 'text', options: [], schema: { type: 'STRING' } } };
}

/** The parts both declarations share. */
function definitionParts(actionUrl: string) {
  return {
    actionUrl,
    objectTypes: ['CONTACT'],
    inputFields: [
      {
        isRequired: true,
        // Meant for the enrolled contact's Email property; an admin may pick any property or a static value.
        supportedValueTypes: ['OBJECT_PROPERTY', 'STATIC_VALUE'],
        typeDefinition: { name: 'email', type: 'string', fieldType: 'text', options: [] },
      },
    ],
    outputFields: OUTPUTS.map(outputField),
    executionRules: [{ labelName: NOT_CONNECTED_ERROR, conditions: { errorCode: NOT_CONNECTED_ERROR } }],
    labels: {
      en: {
        actionName: 'Verify email address',
        appDisplayName: 'verify-hub',
        actionDescription: ACTION_DESCRIPTION,
        actionCardContent: 'Verify {{email}}',
        inputFieldLabels: { email: 'Email address' },
        inputFieldDescriptions: { email: "The address to check; usually the contact's Email property." },
        outputFieldLabels: Object.fromEntries(OUTPUTS.map((o) => [o.name, o.label])),
        executionRules: { [NOT_CONNECTED_ERROR]: 'This HubSpot account is not connected to verify-hub: connect it, then enroll the contact again.' },
      },
    },
  };
}

/** The body of `POST /automation/v4/actions/{appId}` (HubSpot's `PublicActionDefinitionEgg`). */
export function verifyActionDefinition(actionUrl: string, published = true) {
  return { ...definitionParts(actionUrl), published, functions: [] as unknown[] };
}

export type VerifyActionDefinition = ReturnType<typeof verifyActionDefinition>;

/** The uid of the action's project component. */
export const ACTION_COMPONENT_UID = 'verify_hub_verify_email';

/**
 * The action as a component of the app's developer project (`*-hsmeta.json` in
 * `src/app/workflow-actions/`): offered in workflows and, as a data-getting tool, to HubSpot's agents.
 */
export function verifyActionComponent(actionUrl: string) {
  const { actionUrl: url, ...parts } = definitionParts(actionUrl);
  return {
    uid: ACTION_COMPONENT_UID,
    type: 'workflow-action',
    config: {
      actionUrl: url,
      isPublished: true,
      supportedClients: [{ client: 'WORKFLOWS' }, { client: 'AGENTS' }],
      toolType: 'GET_DATA',
      llmConfig: {
        actionDescription:
          'Checks whether an email address can receive mail, without sending any. Input: email (one address). Returns risk (safe, risky, invalid or unknown), score 0-100, a reason code, did_you_mean (a likely correction, or empty) and is_disposable, is_role_account, is_catch_all, is_free_provider, each true, false or unknown (unknown: the check was not made).',
      },
      ...parts,
    },
  };
}

function flag(value: boolean | null | undefined): string {
  return value === true ? 'true' : value === false ? 'false' : 'unknown';
}

/** A result as the action's outputs, typed as the output fields declare them (the score a number). */
export function typedActionOutputs(v: Verification): Record<string, string | number> {
  const outputs: Record<string, string | number> = { risk: v.risk, score: v.score, reason: v.reason, did_you_mean: suggestedAddress(v) ?? '' };
  for (const [name, check] of Object.entries(FLAG_OUTPUTS)) outputs[name] = flag(v.checks[check]);
  return outputs;
}

export type ActionOutputFields = Record<string, string>;

/** A result as the action's output fields (all strings, as `outputFields` takes them). */
export function actionOutputs(v: Verification): ActionOutputFields {
  return Object.fromEntries(Object.entries(typedActionOutputs(v)).map(([name, value]) => [name, String(value)]));
}

/** What completes a blocked action: HubSpot's `CallbackCompletionRequest` requires both. */
export function actionCompletion(v: Verification): { outputFields: ActionOutputFields; typedOutputs: Record<string, string | number> } {
  return { outputFields: actionOutputs(v), typedOutputs: typedActionOutputs(v) };
}
