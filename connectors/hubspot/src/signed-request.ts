import type { z } from 'zod';
import { WebhookRejectedError, type RawWebhookRequest } from '@verify-hub/core';
import { MAX_BODY_BYTES } from './webhook';

/**
 * A request HubSpot signed for the app (a workflow action's call, a card's `hubspot.fetch`): the secret
 * configured, the size, the signature (`verify`, the version the caller accepts), then the JSON body
 * against `schema`. Throws `WebhookRejectedError`: 401 unsigned, badly signed or stale; 413 too big;
 * 400 not JSON or naming the first bad field (`body.inputFields.email: ...`).
 */
export function signedJsonBody<S extends z.ZodType>(
  request: RawWebhookRequest,
  clientSecret: string,
  now: number,
  options: { verify: (request: RawWebhookRequest, secret: string, now: number) => void; schema: S; emptyBody?: string; field: string },
): z.infer<S> {
  if (!clientSecret) throw new WebhookRejectedError('HubSpot app secret (HUBSPOT_CLIENT_SECRET) is not configured', 401);
  if (request.body.length > MAX_BODY_BYTES) throw new WebhookRejectedError(`body: over ${MAX_BODY_BYTES} bytes`, 413);
  options.verify(request, clientSecret, now);
  let json: unknown;
  try {
    json = JSON.parse(request.body.toString('utf8') || (options.emptyBody ?? ''));
  } catch {
    throw new WebhookRejectedError('body: not JSON', 400);
  }
  const parsed = options.schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new WebhookRejectedError(`body.${issue.path.join('.') || options.field}: ${issue.message}`, 400);
  }
  return parsed.data;
}
