/**
 * Webhooks of the fake Pipedrive: registered with `POST /v1/webhooks` as its API has it
 * (`subscription_url`, `event_action` create/change/delete/*, `event_object`, `http_auth_user`/`_password`,
 * `version` 2.0 by default, at most 40 a user) and delivered as webhooks v2: `{ meta, data, previous }`
 * POSTed with HTTP basic auth, `meta.change_source` `api` or `app`, `previous` holding what changed.
 */
export interface FakeWebhook {
  id: number;
  user_id: number;
  subscription_url: string;
  event_action: string;
  event_object: string;
  http_auth_user: string | null;
  http_auth_password: string | null;
  version: string;
  name: string;
}

export interface Delivery {
  webhookId: number;
  action: 'create' | 'change';
  personId: number;
  changeSource: 'api' | 'app';
  /** What the hub answered (0: unreachable). */
  status: number;
}

export const MAX_WEBHOOKS_PER_USER = 40;
const ACTIONS = ['create', 'change', 'delete', '*'];
const OBJECTS = ['activity', 'deal', 'lead', 'note', 'organization', 'person', 'pipeline', 'product', 'stage', 'user', '*'];

/** Checks a registration body as Pipedrive does: the problem's words (400), or undefined. */
export function webhookProblem(body: Record<string, unknown>, existing: number): string | undefined {
  if (typeof body.subscription_url !== 'string' || !/^https?:\/\//.test(body.subscription_url)) return 'subscription_url: must be a valid URL';
  if (!ACTIONS.includes(String(body.event_action))) return 'event_action: invalid value';
  if (!OBJECTS.includes(String(body.event_object))) return 'event_object: invalid value';
  if (typeof body.name !== 'string' || !body.name) return 'name: is required';
  if (body.version !== undefined && body.version !== '1.0' && body.version !== '2.0') return 'version: must be 1.0 or 2.0';
  if (existing >= MAX_WEBHOOKS_PER_USER) return `Maximum number of webhooks (${MAX_WEBHOOKS_PER_USER}) reached`;
  return undefined;
}

export const matches = (hook: FakeWebhook, action: string, object: string) =>
  (hook.event_action === '*' || hook.event_action === action) && (hook.event_object === '*' || hook.event_object === object);

/** Posts one v2 delivery; answers the hub's status (0 when it could not be reached). */
export async function deliver(hook: FakeWebhook, payload: unknown, authOverride?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Pipedrive Webhooks' };
  const auth = authOverride ?? (hook.http_auth_user !== null ? Buffer.from(`${hook.http_auth_user}:${hook.http_auth_password ?? ''}`).toString('base64') : undefined);
  if (auth) headers.authorization = `Basic ${auth}`;
  try {
    const answer = await fetch(hook.subscription_url, { method: 'POST', headers, body: JSON.stringify(payload) });
    await answer.arrayBuffer();
    return answer.status;
  } catch {
    return 0;
  }
}
