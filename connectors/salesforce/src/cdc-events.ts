import { z } from 'zod';
import type { ContactEvent } from '@verify-hub/core';

/** The Change Data Capture channels the hub reads, by object. */
export const CDC_CHANNELS = { Contact: '/data/ContactChangeEvent', Lead: '/data/LeadChangeEvent' } as const;
export type CdcObject = keyof typeof CDC_CHANNELS;
export const CDC_OBJECTS = Object.keys(CDC_CHANNELS) as CdcObject[];

/** The client id the hub's API calls name in `Sforce-Call-Options` (Salesforce puts it in a change event's `changeOrigin`). */
export const HUB_CLIENT_ID = 'verify-hub';

/**
 * Fields the hub writes, or Salesforce stamps on every write: an UPDATE that changed nothing else is the
 * echo of the hub's own write-back. The `EV_` fields (and their flags) are matched by prefix.
 */
const SYSTEM_FIELDS = ['LastModifiedDate', 'LastModifiedById', 'SystemModstamp'];
const HUB_FIELD = /^EV_\w+__c$/;

const Header = z.looseObject({
  entityName: z.string(),
  changeType: z.string(),
  recordIds: z.array(z.string()),
  changedFields: z.array(z.string()).optional(),
  commitTimestamp: z.number().optional(),
  commitUser: z.string().optional(),
  changeOrigin: z.string().optional(),
});
/** A CDC message as the Streaming API delivers it: `{ schema, payload: { ChangeEventHeader, <fields> }, event: { replayId } }`. */
const ChangeMessage = z.looseObject({
  payload: z.looseObject({ ChangeEventHeader: Header, Email: z.string().nullable().optional() }),
  event: z.looseObject({ replayId: z.number().int() }),
});

/** What one change event means for the hub. */
export interface ReadChange {
  replayId: number;
  commitTimestamp?: number;
  /** Contacts to verify: created ones and changed addresses (one per record id). */
  events: ContactEvent[];
  /**
   * Why nothing is verified: `own_write` (the echo of the hub's write-back), `no_email_change`, `deleted`,
   * `no_email` (created or changed with the address empty), `overflow` (too many changes for Salesforce
   * to list: a changed-since sync catches them).
   */
  ignored?: 'own_write' | 'no_email_change' | 'deleted' | 'no_email' | 'overflow';
}

/**
 * One change event as contact events. The loop filter is by *what* changed, not by who: an UPDATE is
 * verified only when `Email` is among its changed fields, and the hub never writes `Email` (it writes
 * the `EV_` fields, and on the user's clean action `HasOptedOutOfEmail` or a status field), so its own
 * write-backs never come back as work. They are recognised as `own_write` (every changed field is a hub
 * or system field, or `changeOrigin` names the hub's client id) so they can be counted. The integration
 * user (`commitUser`) is deliberately not the filter: the same user often runs other integrations
 * (web-to-lead tools, imports) whose new records must be verified.
 *
 * GAP_ events carry no field values (Salesforce could not build them): the record is handed over
 * without an address, and the event path reads it (`pullByIds`). The dedupe key is the channel's
 * replay id and the record, so a re-delivered event is dropped by the event path.
 */
export function readChange(object: CdcObject, orgId: string, raw: unknown): ReadChange | { unread: string } {
  const parsed = ChangeMessage.safeParse(raw);
  if (!parsed.success) return { unread: `${parsed.error.issues[0]?.path.join('.') || 'message'}: ${parsed.error.issues[0]?.message ?? 'not a change event'}` };
  const { payload, event } = parsed.data;
  const header = payload.ChangeEventHeader;
  const changed = header.changedFields ?? [];
  const base = { replayId: event.replayId, commitTimestamp: header.commitTimestamp };
  const kind = header.changeType.replace(/^GAP_/, '');
  const gap = header.changeType.startsWith('GAP_');
  if (header.changeType === 'GAP_OVERFLOW') return { ...base, events: [], ignored: 'overflow' };
  if (kind === 'DELETE') return { ...base, events: [], ignored: 'deleted' };
  if (kind === 'UPDATE' && !gap && !changed.includes('Email')) {
    const ours = header.changeOrigin?.includes(`client=${HUB_CLIENT_ID}`) || (changed.length > 0 && changed.every((f) => HUB_FIELD.test(f) || SYSTEM_FIELDS.includes(f)));
    return { ...base, events: [], ignored: ours ? 'own_write' : 'no_email_change' };
  }
  const email = payload.Email?.trim() || undefined;
  if (!gap && !email) return { ...base, events: [], ignored: 'no_email' };
  const eventKind = kind === 'UPDATE' ? (gap ? 'profile_updated' : 'email_changed') : 'created';
  const occurredAt = header.commitTimestamp ?? Date.now();
  const events = header.recordIds.map<ContactEvent>((recordId) => ({
    platform: 'salesforce',
    kind: eventKind,
    accountId: orgId,
    contactId: recordId,
    ...(email ? { email } : {}),
    occurredAt,
    dedupeKey: `salesforce-cdc:${orgId}:${object}:${event.replayId}:${recordId}`,
  }));
  return { ...base, events };
}
