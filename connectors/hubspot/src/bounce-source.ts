import { z } from 'zod';
import type { Filter, FilterOperatorEnum as FilterOperator } from '@hubspot/api-client/lib/codegen/crm/contacts';
import { InputError, RISKS, type BounceSource, type DeliveryPage, type DeliveryRecord, type Risk } from '@verify-hub/core';
import type { HubSpotApis } from './client';
import { SEARCH_PAGE } from './pull';
import type { RequestRunner } from './request-runner';
import type { ResolvedSettings } from './settings';

/** HubSpot's documented contact properties of marketing email delivery. */
export const HARD_BOUNCE_REASON = 'hs_email_hard_bounce_reason_enum';
export const HARD_BOUNCE_TEXT = 'hs_email_hard_bounce_reason';
export const LAST_SEND_DATE = 'hs_email_last_send_date';

const operator = (value: 'GT' | 'GTE' | 'HAS_PROPERTY') => value as FilterOperator;
const Cursor = z.object({
  phase: z.enum(['hard', 'sent']),
  /** Epoch ms: hard bounces of contacts modified since, and sends since. */
  hardSince: z.number(),
  sentSince: z.number(),
  /** The last contact id of the phase's previous page: pages go on by id (HubSpot orders ties in no set way). */
  afterId: z.string().optional(),
  /** The highest value seen in each phase so far: where the next read starts. */
  hardSeen: z.number(),
  sentSeen: z.number(),
});
type CursorValue = z.infer<typeof Cursor>;

interface Found {
  id: string;
  properties: Record<string, string | null | undefined>;
}

/**
 * What HubSpot keeps of a portal's marketing email on each contact, read through the CRM search: the
 * contacts that hard-bounced (their reason value `hs_email_hard_bounce_reason_enum` and its text
 * `hs_email_hard_bounce_reason`), then those sent a marketing email (`hs_email_last_send_date`). HubSpot
 * keeps no soft bounces per contact and dates no bounce: a bounce is dated at the contact's last send
 * (else its last change). Pages go on by contact id (ties of a date have no order in HubSpot), so no
 * query nears the search's 10,000-result cap; the next read starts from the highest date seen (the
 * contacts at that date are read again: the ledger counts each address once).
 */
export class HubSpotBounceSource implements BounceSource {
  private made = 0;

  constructor(
    private readonly runner: RequestRunner,
    private readonly apis: () => HubSpotApis,
    private readonly settings: ResolvedSettings,
  ) {}

  calls(): number {
    return this.made;
  }

  async read(cursor: string | undefined, since: Date): Promise<DeliveryPage> {
    const start = since.getTime();
    const state: CursorValue = cursor === undefined ? { phase: 'hard', hardSince: start, sentSince: start, hardSeen: start, sentSeen: start } : readCursor(cursor);
    const hard = state.phase === 'hard';
    const property = hard ? 'lastmodifieddate' : LAST_SEND_DATE;
    const filters: Filter[] = [{ propertyName: property, operator: operator('GTE'), value: String(hard ? state.hardSince : state.sentSince) }];
    if (hard) filters.push({ propertyName: HARD_BOUNCE_REASON, operator: operator('HAS_PROPERTY') });
    if (state.afterId !== undefined) filters.push({ propertyName: 'hs_object_id', operator: operator('GT'), value: state.afterId });
    const page = await this.search(filters);
    const records = page.results.flatMap((r) => this.recordOf(r, hard));
    const seen = Math.max(hard ? state.hardSeen : state.sentSeen, ...page.results.map((r) => Date.parse(r.properties[property] ?? '')).filter(Number.isFinite));
    const moved = hard ? { ...state, hardSeen: seen } : { ...state, sentSeen: seen };
    const lastId = page.results.at(-1)?.id;
    const more = lastId !== undefined && (page.results.length >= SEARCH_PAGE || Boolean(page.paging?.next?.after));
    let next: CursorValue;
    let done = false;
    if (more) next = { ...moved, afterId: lastId };
    else if (hard) next = { ...moved, phase: 'sent', afterId: undefined };
    else {
      next = { phase: 'hard', hardSince: moved.hardSeen, sentSince: moved.sentSeen, hardSeen: moved.hardSeen, sentSeen: moved.sentSeen };
      done = true;
    }
    return { records, cursor: JSON.stringify(next), done };
  }

  /** A page of contacts matching `filters`, by id: each page asks for ids past the last one, so no query nears the search's 10,000-result cap. */
  private search(filters: Filter[]) {
    this.made++;
    return this.runner.run('search', () =>
      this.apis().contactsSearch.doSearch({
        filterGroups: [{ filters }],
        sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }] as unknown as string[],
        properties: ['email', 'lastmodifieddate', HARD_BOUNCE_REASON, HARD_BOUNCE_TEXT, LAST_SEND_DATE, this.settings.names.risk, this.settings.names.score, this.settings.names.reason, this.settings.names.checkedAt],
        limit: SEARCH_PAGE,
      }),
    ) as Promise<{ results: Found[]; paging?: { next?: { after?: string } } }>;
  }

  private recordOf(r: Found, hard: boolean): DeliveryRecord[] {
    const email = r.properties.email?.trim();
    const sentAt = Date.parse(r.properties[LAST_SEND_DATE] ?? '');
    const at = Number.isFinite(sentAt) ? sentAt : Date.parse(r.properties.lastmodifieddate ?? '');
    if (!email || !Number.isFinite(at)) return [];
    const held = this.heldVerdict(r.properties);
    const base = { contactId: r.id, email, at: new Date(at).toISOString(), ...(held ? { heldOnPlatform: held } : {}) };
    if (!hard) return [{ ...base, outcome: 'sent', ...(Number.isFinite(sentAt) ? { sendId: `last-send:${base.at}` } : {}) }];
    const code = r.properties[HARD_BOUNCE_REASON]?.trim();
    const text = r.properties[HARD_BOUNCE_TEXT]?.trim();
    return [{ ...base, outcome: 'hard', ...(code ? { reasonCode: code } : {}), ...(text ? { reasonText: text } : {}), sendId: `last-send:${base.at}` }];
  }

  /** The hub's last write, as the contact's properties hold it (ev_risk, ev_score, ev_reason, ev_checked_at). */
  private heldVerdict(p: Found['properties']): DeliveryRecord['heldOnPlatform'] {
    const names = this.settings.names;
    const risk = p[names.risk];
    if (typeof risk !== 'string' || !(RISKS as readonly string[]).includes(risk)) return undefined;
    const score = Number(p[names.score]);
    const checked = Date.parse(p[names.checkedAt] ?? '');
    return {
      risk: risk as Risk,
      ...(p[names.score] && Number.isFinite(score) ? { score } : {}),
      ...(p[names.reason] ? { reason: p[names.reason]! } : {}),
      ...(Number.isFinite(checked) ? { checkedAt: new Date(checked).toISOString() } : {}),
    };
  }
}

function readCursor(cursor: string): CursorValue {
  try {
    return Cursor.parse(JSON.parse(cursor));
  } catch {
    throw new InputError('cursor', 'is not a bounce cursor this HubSpot connection made');
  }
}
