import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WebhookRejectedError, type ConnectionRecord, type ContactEvent, type RawWebhookRequest, type WebhookReceiver, type WebhookRequest } from '@verify-hub/core';

/**
 * Klaviyo's flow webhook, received. Klaviyo has no general "profile created" webhook (its system
 * webhooks are for Advanced KDP accounts and app partners), so a new profile reaches the hub through a
 * flow: triggered when someone joins a list, its Webhook action posts to `/webhooks/klaviyo` with the
 * connection's shared secret in a header (`X-Verify-Hub-Secret`, compared in constant time) and this
 * JSON body, whose `{{ ... }}` Klaviyo fills in per profile (the README and `verify-hub klaviyo setup`
 * print it with the connection filled in):
 *
 *   { "connection": "klaviyo-<account>", "profile_id": "{{ person.KlaviyoID }}", "email": "{{ person.email }}" }
 *
 * The flow does not fire for the hub's own writes: they set properties and never add anyone to a list.
 */
export const FLOW_SECRET_HEADER = 'x-verify-hub-secret';
export const MAX_FLOW_BODY_BYTES = 16 * 1024;

const FlowDelivery = z.object({
  connection: z.string().regex(/^klaviyo-[A-Za-z0-9]{1,64}$/, 'must be the connection id, like klaviyo-AbC123'),
  profile_id: z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'must be the profile id ({{ person.KlaviyoID }})'),
  email: z.string().max(320).optional(),
});

/** The body to paste into the flow's Webhook action, for one connection. */
export const flowWebhookBody = (connectionId: string) => `{ "connection": "${connectionId}", "profile_id": "{{ person.KlaviyoID }}", "email": "{{ person.email }}" }`;

/** What the flow's Webhook action sends besides the address: the connection's secret header and the body; shown by `setup` and the dashboard. */
export const flowWebhookRequest = (record: ConnectionRecord): WebhookRequest => ({
  headers: { [FLOW_SECRET_HEADER]: String(record.credentials.flowSecret) },
  body: flowWebhookBody(record.id),
});

/** Equal in constant time, whatever the lengths (both hashed first). */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected)) && expected.length > 0;
}

/** Checks and parses one delivery against the secret `secretFor` finds for its connection (undefined: no such connection). */
export async function parseFlowDelivery(request: RawWebhookRequest, secretFor: (connectionId: string) => Promise<string | undefined>, now: number): Promise<ContactEvent[]> {
  if (request.body.length > MAX_FLOW_BODY_BYTES) throw new WebhookRejectedError(`body: larger than ${MAX_FLOW_BODY_BYTES} bytes`, 413);
  let body: unknown;
  try {
    body = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw new WebhookRejectedError('body: must be JSON (the flow webhook body the setup printed)', 400);
  }
  const delivery = FlowDelivery.safeParse(body);
  if (!delivery.success) {
    const issue = delivery.error.issues[0]!;
    throw new WebhookRejectedError(`body.${issue.path.join('.')}: ${issue.message}`, 400);
  }
  // An unknown connection gets the same answer as a wrong secret: the route does not tell which exist.
  const expected = (await secretFor(delivery.data.connection)) ?? '';
  if (!sameSecret(request.headers[FLOW_SECRET_HEADER] ?? '', expected)) throw new WebhookRejectedError(`${FLOW_SECRET_HEADER}: missing or not this connection's secret`, 401);
  const email = delivery.data.email?.trim();
  return [
    {
      platform: 'klaviyo',
      kind: 'created',
      accountId: delivery.data.connection.slice('klaviyo-'.length),
      contactId: delivery.data.profile_id,
      ...(email ? { email } : {}),
      occurredAt: now,
      // A flow delivers each joining once; a repeat of the same profile and address within a day is the same news.
      dedupeKey: `flow:${delivery.data.profile_id}:${email?.toLowerCase() ?? ''}`,
    },
  ];
}

/** POST /webhooks/klaviyo: each connection's flow secret is kept sealed with its credentials. */
export function klaviyoReceiver(secretFor: (connectionId: string) => Promise<string | undefined>): WebhookReceiver {
  return {
    receive: (request, _route, now) => parseFlowDelivery(request, secretFor, now),
    connectionIdFor: (event) => `klaviyo-${event.accountId}`,
  };
}
