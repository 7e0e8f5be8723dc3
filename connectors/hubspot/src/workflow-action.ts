import { z } from 'zod';
import type { RawWebhookRequest, Verification } from '@verify-hub/core';
import { NOT_CONNECTED_ERROR, actionOutputs, type ActionOutputFields } from './action-definition';
import { hubspotConnectionId } from './settings';
import { signedJsonBody } from './signed-request';
import { verifyActionSignature } from './webhook';

/**
 * The custom workflow action "Verify email address" at run time, as pure pieces: the check and
 * parsing of HubSpot's call and the answers to it (its definition is `action-definition.ts`). The hub
 * mounts them through a generic action receiver.
 */

/** How long HubSpot keeps a blocked action waiting for the callback (ISO-8601 duration; HubSpot's default is a week). */
export const BLOCK_EXPIRATION = 'P1D';
export const BLOCK_EXPIRATION_MS = 86_400_000;

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

/** The answer that makes HubSpot wait for the callback. */
export function blockedAnswer(): { outputFields: ActionOutputFields } {
  return { outputFields: { hs_execution_state: 'BLOCK', hs_expiration_duration: BLOCK_EXPIRATION } };
}

/**
 * The answer to a call from a portal the hub holds no connection for: the action fails and the
 * workflow goes on (`FAIL_CONTINUE`), with `errorCode` saying why; nothing is looked up or spent.
 */
export function notConnectedAnswer(): { outputFields: ActionOutputFields } {
  return { outputFields: { hs_execution_state: 'FAIL_CONTINUE', errorCode: NOT_CONNECTED_ERROR } };
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
