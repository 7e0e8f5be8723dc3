import { z } from 'zod';
import { suggestedAddress, type RawWebhookRequest, type Verification } from '@verify-hub/core';
import type { PublicActionDefinitionEgg } from '@hubspot/api-client/lib/codegen/automation/actions/models/PublicActionDefinitionEgg';
import { buildHubSpotApis } from './client';
import { hubspotConnectionId } from './settings';
import { signedJsonBody } from './signed-request';
import { verifyActionSignature } from './webhook';

/**
 * The custom workflow action "Verify email address" (automation actions API v4), as pure pieces:
 * its definition, the check and parsing of HubSpot's call, the output fields of a result, and the
 * callback that completes a blocked action. The hub mounts them through a generic action receiver.
 */

export const FLAG_OUTPUTS = { is_disposable: 'disposable', is_role_account: 'roleAccount', is_catch_all: 'catchAll', is_free_provider: 'freeProvider' } as const;
/** A check's value as an output: "unknown" where the check was not made, never "false". */
export const FLAG_VALUES = ['true', 'false', 'unknown'] as const;
const RISK_VALUES = ['safe', 'risky', 'invalid', 'unknown'] as const;

/** How long HubSpot keeps a blocked action waiting for the callback (ISO-8601 duration; HubSpot's default is a week). */
export const BLOCK_EXPIRATION = 'P1D';
export const BLOCK_EXPIRATION_MS = 86_400_000;

export type ActionOutputFields = Record<string, string>;

function option(value: string, displayOrder: number) {
  return { label: value, value, displayOrder, hidden: false, description: '', readOnly: false, doubleData: 0 };
}
function enumeration(name: string, values: readonly string[]) {
  return { typeDefinition: { name, type: 'enumeration' as const, fieldType: 'select' as const, options: values.map(option), externalOptions: false } };
}
function plain(name: string, type: 'string' | 'number') {
  return { typeDefinition: { name, type, fieldType: type === 'number' ? ('number' as const) : ('text' as const), options: [], externalOptions: false } };
}

/** The action's definition for `POST /automation/v4/actions/{appId}` (SDK model PublicActionDefinitionEgg). */
export function verifyActionDefinition(actionUrl: string, published = true): PublicActionDefinitionEgg {
  return {
    actionUrl,
    published,
    objectTypes: ['CONTACT'],
    functions: [],
    inputFields: [
      {
        isRequired: true,
        // Mapped by default to the enrolled contact's email; an admin may pick any property instead.
        supportedValueTypes: ['OBJECT_PROPERTY', 'STATIC_VALUE'],
        typeDefinition: { name: 'email', type: 'string', fieldType: 'text', options: [], externalOptions: false },
      },
    ],
    outputFields: [
      enumeration('risk', RISK_VALUES),
      plain('score', 'number'),
      plain('reason', 'string'),
      plain('did_you_mean', 'string'),
      ...Object.keys(FLAG_OUTPUTS).map((name) => enumeration(name, FLAG_VALUES)),
    ],
    labels: {
      en: {
        actionName: 'Verify email address',
        appDisplayName: 'verify-hub',
        actionDescription: 'Checks the address with verify-hub and gives its risk (safe, risky, invalid or unknown), score, reason, a suggested correction and the checks, to branch on.',
        actionCardContent: 'Verify {{email}}',
        inputFieldLabels: { email: 'Email address' },
        inputFieldDescriptions: { email: "The address to check; usually the contact's Email property." },
        outputFieldLabels: {
          risk: 'Risk', score: 'Score (0-100)', reason: 'Reason', did_you_mean: 'Did you mean',
          is_disposable: 'Disposable', is_role_account: 'Role account', is_catch_all: 'Catch-all domain', is_free_provider: 'Free provider',
        },
      },
    },
  } as PublicActionDefinitionEgg;
}

const id = z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String);
const ActionCallSchema = z.looseObject({
  callbackId: z.string().min(1).max(200),
  origin: z.looseObject({ portalId: id, actionDefinitionId: id.optional() }),
  object: z.looseObject({ objectId: id, objectType: z.string().min(1) }).optional(),
  inputFields: z.looseObject({ email: z.string().max(320).nullable().optional() }),
});

export interface ActionCall {
  callbackId: string;
  portalId: string;
  objectId?: string;
  /** The address to check, trimmed; empty when the mapped property has no value. */
  email: string;
}

/**
 * Checks the signature and parses HubSpot's call: v3 (client secret, 5-minute timestamp rule) when
 * sent, else the v2 HubSpot's custom-action guide documents for these calls (`verifyActionSignature`).
 * Throws `WebhookRejectedError`: 401 unsigned, badly signed or stale; 400 naming the bad field; 413 too big.
 */
export function parseActionCall(request: RawWebhookRequest, clientSecret: string, now: number = Date.now()): ActionCall {
  const call = signedJsonBody(request, clientSecret, now, { verify: verifyActionSignature, schema: ActionCallSchema, field: 'call' });
  return { callbackId: call.callbackId, portalId: call.origin.portalId, objectId: call.object?.objectId, email: call.inputFields.email?.trim() ?? '' };
}

function flag(value: boolean | null | undefined): string {
  return value === true ? 'true' : value === false ? 'false' : 'unknown';
}

/** A result as the action's output fields (all strings, as the callbacks API takes them). */
export function actionOutputs(v: Verification): ActionOutputFields {
  const outputs: ActionOutputFields = { risk: v.risk, score: String(v.score), reason: v.reason, did_you_mean: suggestedAddress(v) ?? '' };
  for (const [name, check] of Object.entries(FLAG_OUTPUTS)) outputs[name] = flag(v.checks[check]);
  return outputs;
}

/** The answer that makes HubSpot wait for the callback. */
export function blockedAnswer(): { outputFields: ActionOutputFields } {
  return { outputFields: { hs_execution_state: 'BLOCK', hs_expiration_duration: BLOCK_EXPIRATION } };
}

/**
 * The answer to a call from a portal the hub holds no connection for: the action fails and the
 * workflow goes on (`FAIL_CONTINUE`), with `errorCode` saying why; nothing is looked up or spent.
 */
export function notConnectedAnswer(): { outputFields: ActionOutputFields } {
  return { outputFields: { hs_execution_state: 'FAIL_CONTINUE', errorCode: 'PORTAL_NOT_CONNECTED' } };
}

/** Where the hub's action work is done: the cached result to answer with, or undefined once the call is queued. */
export type AnswerActionCall = (call: { platform: 'hubspot'; connectionId: string; callbackId: string; email: string; deadline: number }) => Promise<Verification | undefined>;

/**
 * The hub's receiver for POST /actions/hubspot: signature and body checked, the portal's connection
 * looked for (like the card, a portal the hub is not connected to gets `notConnectedAnswer`), then
 * the result's output fields at once, or the BLOCK answer while a durable job completes the callback.
 */
export function hubspotActionReceiver(clientSecret: string, answer: AnswerActionCall, connected: (connectionId: string) => Promise<boolean>) {
  return {
    async answer(request: RawWebhookRequest, now: number): Promise<{ outputFields: ActionOutputFields }> {
      const call = parseActionCall(request, clientSecret, now);
      if (!(await connected(hubspotConnectionId(call.portalId)))) return notConnectedAnswer();
      const result = await answer({
        platform: 'hubspot', connectionId: hubspotConnectionId(call.portalId), callbackId: call.callbackId, email: call.email, deadline: now + BLOCK_EXPIRATION_MS,
      });
      return result ? { outputFields: actionOutputs(result) } : blockedAnswer();
    },
  };
}

/** The definitions API (developer API key, app id): used by `verify-hub hubspot actions`. */
export function actionDefinitionsApi(options: { basePath: string; developerApiKey: string }) {
  return buildHubSpotApis({ basePath: options.basePath, developerApiKey: options.developerApiKey }).actionDefinitions;
}
