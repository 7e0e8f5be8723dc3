import { randomBytes } from 'node:crypto';

/**
 * Campaigns and their reports in the fake Mailchimp, as the Marketing API documents them: GET
 * /campaigns (filtered by `list_id`, `status`, `since_send_time`, sorted by `send_time`, offset paging
 * of at most 1,000) and GET /reports/{campaign_id}/sent-to (each recipient's `status`: `sent`, or a
 * `hard` or `soft` bounce). A campaign is "sent" with the outcome of each recipient; a hard bounce
 * cleans the member at once (as Mailchimp does, posting its `cleaned` webhook with reason `hard` and
 * the campaign), and an abuse report cleans it with reason `abuse`.
 */

export type RecipientOutcome = 'sent' | 'hard' | 'soft' | 'abuse';

interface FakeCampaign {
  id: string;
  listId: string;
  sendTime: string;
  recipients: { hash: string; email: string; status: 'sent' | 'hard' | 'soft' }[];
}

interface Reply {
  status: number;
  body?: unknown;
}

/** What the campaigns need of the fake's audiences. */
export interface CampaignHost {
  ownsList(credential: string, listId: string): boolean;
  memberMergeFields(listId: string, hash: string): Record<string, string | number> | undefined;
  clean(listId: string, email: string, reason: 'hard' | 'abuse', campaignId: string): void;
  hashOf(email: string): string;
}

const mcTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const problem = (status: number, title: string, detail: string): Reply => ({ status, body: { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: randomBytes(8).toString('hex') } });

export class FakeCampaigns {
  private readonly campaigns: FakeCampaign[] = [];

  constructor(private readonly host: CampaignHost) {}

  /** Sends a campaign to `outcomes`' addresses at `sendTimeMs`; answers its id. */
  send(listId: string, outcomes: Map<string, RecipientOutcome>, sendTimeMs: number): string {
    const id = randomBytes(5).toString('hex');
    const recipients = [...outcomes].map(([email, outcome]) => ({ hash: this.host.hashOf(email), email, status: outcome === 'abuse' ? ('sent' as const) : outcome }));
    this.campaigns.push({ id, listId, sendTime: mcTime(sendTimeMs), recipients });
    for (const [email, outcome] of outcomes) {
      if (outcome === 'hard') this.host.clean(listId, email, 'hard', id);
      if (outcome === 'abuse') this.host.clean(listId, email, 'abuse', id);
    }
    return id;
  }

  /** Routes GET /campaigns and GET /reports/{id}/sent-to; undefined for other paths. */
  dispatch(credential: string, parts: string[], method: string, query: URLSearchParams): Reply | undefined {
    if (method !== 'GET') return undefined;
    if (parts[0] === 'campaigns' && parts.length === 1) return this.list(credential, query);
    if (parts[0] === 'reports' && parts.length === 3 && parts[2] === 'sent-to') return this.sentTo(credential, parts[1]!, query);
    return undefined;
  }

  private list(credential: string, query: URLSearchParams): Reply {
    const paging = readPaging(query);
    if ('status' in paging) return paging;
    let found = this.campaigns.filter((c) => this.host.ownsList(credential, c.listId));
    const listId = query.get('list_id');
    if (listId) found = found.filter((c) => c.listId === listId);
    const status = query.get('status');
    if (status && !['save', 'paused', 'schedule', 'sending', 'sent'].includes(status)) return problem(400, 'Invalid Resource', `The status parameter is invalid: ${status}`);
    if (status && status !== 'sent') found = [];
    const since = query.get('since_send_time');
    if (since) {
      const t = Date.parse(since);
      if (Number.isNaN(t)) return problem(400, 'Invalid Resource', 'since_send_time must be an ISO 8601 time.');
      found = found.filter((c) => Date.parse(c.sendTime) > t);
    }
    if (query.get('sort_field') === 'send_time') found = [...found].sort((a, b) => Date.parse(a.sendTime) - Date.parse(b.sendTime));
    if (query.get('sort_dir') === 'DESC') found.reverse();
    const campaigns = found.slice(paging.offset, paging.offset + paging.count).map((c) => ({
      id: c.id,
      type: 'regular',
      status: 'sent',
      send_time: c.sendTime,
      emails_sent: c.recipients.length,
      recipients: { list_id: c.listId, recipient_count: c.recipients.length },
    }));
    return { status: 200, body: { campaigns, total_items: found.length } };
  }

  private sentTo(credential: string, campaignId: string, query: URLSearchParams): Reply {
    const campaign = this.campaigns.find((c) => c.id === campaignId && this.host.ownsList(credential, c.listId));
    if (!campaign) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const paging = readPaging(query);
    if ('status' in paging) return paging;
    const sent_to = campaign.recipients.slice(paging.offset, paging.offset + paging.count).map((r) => ({
      email_id: r.hash,
      email_address: r.email,
      merge_fields: { ...(this.host.memberMergeFields(campaign.listId, r.hash) ?? {}) },
      vip: false,
      status: r.status,
      open_count: 0,
      campaign_id: campaign.id,
      list_id: campaign.listId,
      list_is_active: true,
    }));
    return { status: 200, body: { sent_to, campaign_id: campaign.id, total_items: campaign.recipients.length } };
  }
}

function readPaging(query: URLSearchParams): { count: number; offset: number } | Reply {
  const count = Number(query.get('count') ?? 10);
  const offset = Number(query.get('offset') ?? 0);
  if (!Number.isInteger(count) || count < 1 || count > 1000) return problem(400, 'Invalid Resource', 'The count parameter must be an integer between 1 and 1000.');
  if (!Number.isInteger(offset) || offset < 0) return problem(400, 'Invalid Resource', 'The offset parameter must be a non-negative integer.');
  return { count, offset };
}
