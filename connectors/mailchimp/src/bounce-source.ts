import { z } from 'zod';
import { InputError, RISKS, type BounceSource, type DeliveryPage, type DeliveryRecord, type Risk } from '@verify-hub/core';
import type { MailchimpApi } from './api';
import type { MailchimpNames } from './merge-field-mapping';
import type { Campaign, SentTo } from './report-responses';
import { mailchimpTime } from './scope';

/** Mailchimp's largest page. */
const PAGE = 1000;
/** A campaign's recipients are read again this long after its send, while late bounces come in. */
export const CAMPAIGN_SETTLE_MS = 3 * 86_400_000;

const Time = z.string().refine((s) => Number.isFinite(Date.parse(s)));
const Pass = { since: Time, cleanedSince: Time, startedAt: Time };
const Cursor = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('campaigns'), ...Pass, offset: z.number().int().min(0), campaigns: z.array(z.object({ id: z.string(), sentAt: Time })) }),
  z.object({ phase: z.literal('sent-to'), ...Pass, campaigns: z.array(z.object({ id: z.string(), sentAt: Time })), index: z.number().int().min(0), offset: z.number().int().min(0) }),
  z.object({ phase: z.literal('cleaned'), ...Pass, offset: z.number().int().min(0) }),
]);
type CursorValue = z.infer<typeof Cursor>;

/**
 * What Mailchimp reports of an audience's sends, read through the Marketing API: its sent campaigns
 * (GET /campaigns, status=sent, by send time), each one's recipients with their delivery status (GET
 * /reports/{id}/sent-to: `sent`, or bounced `hard` or `soft`; no reason text: Mailchimp gives none
 * there), then the members it cleaned since the last read (GET /lists/{id}/members?status=cleaned),
 * a status only (a hard bounce, or repeated soft ones: no campaign named). Its `cleaned` webhook, with
 * reason `hard` or `abuse`, is pushed to the hub (webhook.ts). Campaigns stay in the reading for
 * CAMPAIGN_SETTLE_MS after their send; the ledger counts an address once however often it is read.
 */
export class MailchimpBounceSource implements BounceSource {
  constructor(
    private readonly api: MailchimpApi,
    private readonly listId: string,
    private readonly names: MailchimpNames,
  ) {}

  calls(): number {
    const c = this.api.calls;
    return c.read + c.write + c.poll + c.archive;
  }

  async read(cursor: string | undefined, since: Date): Promise<DeliveryPage> {
    const now = new Date().toISOString();
    const state: CursorValue = cursor === undefined ? { phase: 'campaigns', since: since.toISOString(), cleanedSince: since.toISOString(), startedAt: now, offset: 0, campaigns: [] } : readCursor(cursor);
    switch (state.phase) {
      case 'campaigns':
        return this.listCampaigns(state);
      case 'sent-to':
        return this.readSentTo(state);
      case 'cleaned':
        return this.readCleaned(state);
    }
  }

  private async listCampaigns(state: Extract<CursorValue, { phase: 'campaigns' }>): Promise<DeliveryPage> {
    const page = await this.api.sentCampaigns(this.listId, { sinceSendTime: mailchimpTime(new Date(state.since)), count: PAGE, offset: state.offset });
    const campaigns = [...state.campaigns, ...page.campaigns.filter(sentHere(this.listId)).map((c) => ({ id: c.id, sentAt: c.send_time! }))];
    const offset = state.offset + page.campaigns.length;
    const next: CursorValue =
      page.campaigns.length > 0 && offset < page.total_items
        ? { ...state, offset, campaigns }
        : campaigns.length > 0
          ? { phase: 'sent-to', since: state.since, cleanedSince: state.cleanedSince, startedAt: state.startedAt, campaigns, index: 0, offset: 0 }
          : { phase: 'cleaned', since: state.since, cleanedSince: state.cleanedSince, startedAt: state.startedAt, offset: 0 };
    return { records: [], cursor: JSON.stringify(next), done: false };
  }

  private async readSentTo(state: Extract<CursorValue, { phase: 'sent-to' }>): Promise<DeliveryPage> {
    const campaign = state.campaigns[state.index]!;
    const names = [this.names.riskMergeField, this.names.scoreMergeField, this.names.dateMergeField];
    const page = await this.api.sentTo(campaign.id, { count: PAGE, offset: state.offset, mergeFields: names });
    const records = page.sent_to.map((r) => this.recordOf(r, campaign));
    const offset = state.offset + page.sent_to.length;
    let next: CursorValue;
    if (page.sent_to.length > 0 && offset < page.total_items) next = { ...state, offset };
    else if (state.index + 1 < state.campaigns.length) next = { ...state, index: state.index + 1, offset: 0 };
    else next = { phase: 'cleaned', since: state.since, cleanedSince: state.cleanedSince, startedAt: state.startedAt, offset: 0 };
    return { records, cursor: JSON.stringify(next), done: false };
  }

  private async readCleaned(state: Extract<CursorValue, { phase: 'cleaned' }>): Promise<DeliveryPage> {
    const page = await this.api.membersPage(this.listId, {
      count: PAGE,
      offset: state.offset,
      status: 'cleaned',
      sinceLastChanged: mailchimpTime(new Date(state.cleanedSince)),
      fields: ['members.id', 'members.email_address', 'members.status', 'members.last_changed', 'total_items'],
    });
    const records: DeliveryRecord[] = page.members.map((m) => ({
      contactId: m.id,
      email: m.email_address,
      outcome: 'hard',
      reasonCode: 'cleaned',
      reasonText: 'Mailchimp cleaned the address (a hard bounce, or repeated soft bounces)',
      at: m.last_changed ?? state.startedAt,
      statusOnly: true,
    }));
    const offset = state.offset + page.members.length;
    if (page.members.length > 0 && offset < page.total_items) return { records, cursor: JSON.stringify({ ...state, offset }), done: false };
    // The next read lists campaigns still settling, and members cleaned since this read began.
    const settling = new Date(Math.max(Date.parse(state.since), Date.parse(state.startedAt) - CAMPAIGN_SETTLE_MS)).toISOString();
    const next: CursorValue = { phase: 'campaigns', since: settling, cleanedSince: state.startedAt, startedAt: state.startedAt, offset: 0, campaigns: [] };
    return { records, cursor: JSON.stringify(next), done: true };
  }

  private recordOf(r: SentTo, campaign: { id: string; sentAt: string }): DeliveryRecord {
    const held = this.heldVerdict(r.merge_fields);
    return {
      contactId: r.email_id,
      email: r.email_address,
      outcome: r.status,
      at: new Date(Date.parse(campaign.sentAt)).toISOString(),
      sendId: campaign.id,
      ...(held ? { heldOnPlatform: held } : {}),
    };
  }

  /** The hub's last write as the member's merge fields hold it (EVRISK, EVSCORE, EVDATE). */
  private heldVerdict(merge: Record<string, unknown> | undefined): DeliveryRecord['heldOnPlatform'] {
    const risk = merge?.[this.names.riskMergeField];
    if (typeof risk !== 'string' || !(RISKS as readonly string[]).includes(risk)) return undefined;
    const score = Number(merge?.[this.names.scoreMergeField]);
    const day = merge?.[this.names.dateMergeField];
    return {
      risk: risk as Risk,
      ...(merge?.[this.names.scoreMergeField] !== '' && Number.isFinite(score) ? { score } : {}),
      ...(typeof day === 'string' && Number.isFinite(Date.parse(day)) ? { checkedAt: new Date(Date.parse(day)).toISOString() } : {}),
    };
  }
}

/** A campaign sent (it has a send time) to this audience. */
function sentHere(listId: string) {
  return (c: Campaign) => !!c.send_time && Number.isFinite(Date.parse(c.send_time)) && (c.recipients?.list_id === undefined || c.recipients.list_id === listId);
}

function readCursor(cursor: string): CursorValue {
  try {
    return Cursor.parse(JSON.parse(cursor));
  } catch {
    throw new InputError('cursor', 'is not a bounce cursor this Mailchimp connection made');
  }
}
