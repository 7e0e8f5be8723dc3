import { z } from 'zod';
import { InputError, VerifyHubError, WebhookRejectedError, checksInWords, reasonInWords, suggestedAddress, type ConnectionStore, type PlatformHost, type PlatformRoute, type RawWebhookRequest, type Verification } from '@verify-hub/core';
import { hubspotConnectionId } from './settings';
import { signedJsonBody } from './signed-request';
import { verifyV3Signature } from './webhook';

/**
 * The contact card's data ("Email verification" on a contact record, hubspot-project/): the card
 * calls the hub with `hubspot.fetch`, which HubSpot signs with the v3 signature (client secret,
 * 5-minute timestamp) and to whose URL it adds `portalId` (with `userId`, `userEmail`, `appId`).
 * Only v3 is accepted here: v1/v2 carry no timestamp, so a recorded request could be replayed.
 */

/** A signed card request from a portal the hub holds no connection for (403): nothing is looked up or spent. */
export class PortalNotConnectedError extends VerifyHubError {
  override readonly code: string = 'PORTAL_NOT_CONNECTED';
  constructor(portalId: string) {
    super(`portalId: HubSpot portal ${portalId} is not connected to the hub`, { status: 403 });
  }
}

/** What the card asks: the stored verdict (`verdict`) or a fresh check (`verify`). */
export const CARD_ACTIONS = ['verdict', 'verify'] as const;
export type CardAction = (typeof CARD_ACTIONS)[number];

const CardBodySchema = z.looseObject({
  email: z.string({ error: 'is required: the contact\'s email' }).trim().min(1, 'is required: the contact\'s email').max(320, 'is longer than an email address can be'),
  objectId: z.union([z.number().int().nonnegative(), z.string().regex(/^\d+$/)]).transform(String).optional(),
});

export interface CardRequest {
  action: CardAction;
  portalId: string;
  connectionId: string;
  email: string;
  objectId?: string;
}

/** Checks the v3 signature and parses the card's call. Throws `WebhookRejectedError` (401 unsigned, forged or stale; 400 naming the field) or `InputError` for an unknown action. */
export function parseCardRequest(request: RawWebhookRequest, action: string, clientSecret: string, now: number = Date.now()): CardRequest {
  const body = signedJsonBody(request, clientSecret, now, { verify: verifyV3Signature, schema: CardBodySchema, emptyBody: '{}', field: 'email' });
  if (!(CARD_ACTIONS as readonly string[]).includes(action)) throw new InputError('action', `must be one of ${CARD_ACTIONS.join(', ')}`);
  const portalId = new URL(request.url).searchParams.get('portalId') ?? '';
  if (!/^\d+$/.test(portalId)) throw new WebhookRejectedError('query.portalId: is required (HubSpot adds it to every hubspot.fetch request)', 400);
  return { action: action as CardAction, portalId, connectionId: hubspotConnectionId(portalId), email: body.email, objectId: body.objectId };
}

/** One check on the card: "yes", "no" or "not checked" (a check not made is never "no"). */
export interface CardCheck {
  check: string;
  label: string;
  value: string;
  checked: boolean;
}

/** The card's view of an address: its verdict in plain words, or `checked: false` when the hub has none. */
export type CardView =
  | { checked: false; email: string }
  | { checked: true; email: string; risk: Verification['risk']; score: number; reason: string; didYouMean: string | null; checkedAt: string; checks: CardCheck[] };

const CARD_CHECKS = new Set(['disposable', 'roleAccount', 'catchAll', 'freeProvider', 'smtp', 'mx']);

export function cardView(email: string, v: Verification | undefined): CardView {
  if (!v) return { checked: false, email };
  return {
    checked: true,
    email,
    risk: v.risk,
    score: v.score,
    reason: reasonInWords(v.reason) ?? v.reason.replace(/_/g, ' '),
    didYouMean: suggestedAddress(v) ?? null,
    checkedAt: v.checkedAt,
    checks: checksInWords(v).filter((c) => CARD_CHECKS.has(c.check)).map(({ check, label, value, checked }) => ({ check, label, value, checked })),
  };
}

/** Where the hub finds a verdict: the stored one (cache, last runs) or, for `verify`, a fresh one through the rate-limited engine. */
export interface CardVerdicts {
  stored(connectionId: string, email: string): Promise<Verification | undefined>;
  verify(connectionId: string, email: string): Promise<Verification>;
}

/**
 * The card's verdicts from the host: only portals with a stored connection are answered (a fresh
 * check spends the hub's credits); the stored verdict is the pipeline's, a fresh one goes through
 * the workers' rate-limited engine.
 */
export function cardVerdicts(host: PlatformHost, connections: ConnectionStore | undefined): CardVerdicts {
  const connected = async (connectionId: string) => {
    if (!(await connections?.get(connectionId))) throw new PortalNotConnectedError(connectionId.replace(/^hubspot-/, ''));
  };
  return {
    async stored(connectionId, email) {
      await connected(connectionId);
      return host.storedVerdict(email);
    },
    async verify(connectionId, email) {
      await connected(connectionId);
      return host.verifyNow(email);
    },
  };
}

/** The card's route, served by the hub at POST /platforms/hubspot/cards/:action (verdict, verify). */
export function cardRoute(clientSecret: string, verdicts: CardVerdicts): PlatformRoute {
  const receiver = hubspotCardReceiver(clientSecret, verdicts);
  return { method: 'POST', path: '/cards/:action', handle: async (request) => ({ status: 200, body: await receiver.answer(request, request.params.action ?? '', Date.now()) }) };
}

/** The card's receiver: checks the call and answers the card's view. */
export function hubspotCardReceiver(clientSecret: string, verdicts: CardVerdicts) {
  return {
    async answer(request: RawWebhookRequest, action: string, now: number): Promise<CardView> {
      const call = parseCardRequest(request, action, clientSecret, now);
      const result = call.action === 'verify' ? await verdicts.verify(call.connectionId, call.email) : await verdicts.stored(call.connectionId, call.email);
      return cardView(call.email, result);
    },
  };
}
