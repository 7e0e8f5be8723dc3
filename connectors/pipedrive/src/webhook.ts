import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { WebhookRejectedError, type ConnectionStore, type ContactEvent, type RawWebhookRequest, type WebhookReceiver } from '@verify-hub/core';
import { PipedriveSettings, pipedriveConnectionId } from './settings';
import { WEBHOOK_PASSWORD } from './webhook-registration';

const id = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(Number);

/** A webhooks v2 delivery: `meta` (what happened, by whom, from where), `data` (the person now), `previous` (what changed). */
const Delivery = z.looseObject({
  meta: z.looseObject({
    action: z.string().min(1),
    entity: z.string().min(1),
    entity_id: id,
    company_id: id,
    user_id: id.optional(),
    change_source: z.string().nullish(),
    timestamp: z.number().nullish(),
  }),
  data: z.looseObject({ emails: z.array(z.looseObject({ value: z.string().nullish(), primary: z.boolean().nullish() })).nullish() }).nullish(),
  previous: z.record(z.string(), z.unknown()).nullish(),
});
type Delivery = z.infer<typeof Delivery>;

const digest = (text: string) => createHash('sha256').update(text).digest();
const refused = () => new WebhookRejectedError('authorization: basic auth does not match a connected Pipedrive company', 401);

/** The basic-auth user and password of a delivery (the user is the connection's id). */
function basicAuth(request: RawWebhookRequest): { user: string; password: string } {
  const header = request.headers.authorization ?? '';
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match) throw new WebhookRejectedError('authorization: Pipedrive sends HTTP basic auth with every delivery', 401);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw refused();
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Whether a change is one to verify: its `previous` names the emails. Our own writes touch only our
 * fields (never the emails), so they never come back as work; a change reported without `previous`
 * is ours when it came through the API as the connection's user.
 */
function worthVerifying(delivery: Delivery, settings: PipedriveSettings): boolean {
  const { meta, previous } = delivery;
  if (meta.action === 'create' || meta.action === 'added') return true;
  if (meta.action !== 'change' && meta.action !== 'updated') return false;
  if (previous) return 'emails' in previous || 'email' in previous;
  return !(meta.change_source === 'api' && meta.user_id === settings.userId);
}

/**
 * POST /webhooks/pipedrive: webhooks v2 for persons. The basic-auth user names the connection, its
 * password is compared in constant time with the one kept sealed with it; the company in the body must
 * be that connection's. A delivery about anything but a new person or changed emails gives no event.
 */
export function pipedriveReceiver(connections: () => ConnectionStore | undefined): WebhookReceiver {
  return {
    async receive(request) {
      const { user, password } = basicAuth(request);
      const record = /^pipedrive-\d+$/.test(user) ? await connections()?.get(user) : undefined;
      const expected = record?.platform === 'pipedrive' ? record.credentials[WEBHOOK_PASSWORD] : undefined;
      // Compared as digests: equal lengths, so the comparison takes the same time whatever was sent.
      if (!timingSafeEqual(digest(password), digest(typeof expected === 'string' && expected ? expected : `\0${password}`))) throw refused();
      let body: unknown;
      try {
        body = JSON.parse(request.body.toString('utf8'));
      } catch {
        throw new WebhookRejectedError('body: must be JSON', 400);
      }
      const parsed = Delivery.safeParse(body);
      if (!parsed.success) throw new WebhookRejectedError(`body.${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`, 400);
      const delivery = parsed.data;
      const settings = PipedriveSettings.parse(record!.settings);
      if (delivery.meta.company_id !== settings.companyId) throw new WebhookRejectedError('body.meta.company_id: is not the company of this connection', 401);
      if (delivery.meta.entity !== 'person' || !worthVerifying(delivery, settings)) return [];
      const emails = delivery.data?.emails ?? [];
      const primary = (emails.find((e) => e.primary) ?? emails[0])?.value?.trim();
      const at = delivery.meta.timestamp ? delivery.meta.timestamp * 1000 : Date.now();
      const event: ContactEvent = {
        platform: 'pipedrive',
        kind: delivery.meta.action === 'create' || delivery.meta.action === 'added' ? 'created' : 'email_changed',
        accountId: String(delivery.meta.company_id),
        contactId: String(delivery.meta.entity_id),
        ...(primary ? { email: primary } : {}),
        occurredAt: at,
        dedupeKey: `${delivery.meta.entity_id}:${delivery.meta.action}:${at}`,
      };
      return [event];
    },
    connectionIdFor: (event) => pipedriveConnectionId(event.accountId),
  };
}
