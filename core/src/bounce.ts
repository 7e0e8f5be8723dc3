import type { Connector, ContactEvent } from './connector';
import type { Risk } from './result-wire';
import { undeterminedChecks, type Verification } from './verification';

/*
 * The bounce source: an optional capability of a platform's connector (docs/bounces.md). A connector
 * that has one lists what its platform reports of the customer's own sends (who was sent to, who
 * bounced, hard or soft, the platform's reason) since a cursor; the hub keeps it in a ledger per
 * connection, joins it to the verdicts it held, reports how they held up, and corrects a verdict a
 * hard bounce proved wrong. Self-contained on purpose: `Connector` itself is unchanged, a connector
 * opts in by having a `bounces` member (`bounceSourceOf`).
 */

/** One delivery outcome a platform reports for one address: sent (and not reported bounced), or bounced hard or soft. */
export interface DeliveryRecord {
  /** The platform's contact id (Mailchimp subscriber hash, HubSpot contact id). */
  contactId: string;
  email: string;
  outcome: 'sent' | 'hard' | 'soft';
  /** The platform's own reason, as it gave it (`abuse`, `UNKNOWN_USER`), and its text; absent when it gives none. */
  reasonCode?: string;
  reasonText?: string;
  /** ISO time of the send, or of the bounce when the platform dates it. */
  at: string;
  /** The send it belongs to (a campaign id), when the platform says. */
  sendId?: string;
  /**
   * A record only the platform's status stands for (a member Mailchimp lists as cleaned, no campaign
   * named): weaker evidence, which a policy record of the same address outweighs.
   */
  statusOnly?: boolean;
  /** The verdict the platform holds from the hub's last write (merge fields, properties), read with the record. */
  heldOnPlatform?: { risk: Risk; score?: number; reason?: string; checkedAt?: string };
}

export interface DeliveryPage {
  records: DeliveryRecord[];
  /** Where to go on from: the next page now, or, once `done`, where the next read starts. */
  cursor: string;
  /** Nothing more to read now. */
  done: boolean;
}

export interface BounceSource {
  /**
   * One page of records after `cursor`; without one, from `since` (the report's longest window). A
   * cursor the source did not make throws `InputError('cursor')`. Records may repeat across reads
   * (a campaign is read again while its bounces still come in): the ledger counts each address once.
   */
  read(cursor: string | undefined, since: Date): Promise<DeliveryPage>;
  /** Platform calls made so far, for the bench and the logs. */
  calls(): number;
}

/** A connector with the capability. */
export interface BounceReporting {
  readonly bounces: BounceSource;
}

export function bounceSourceOf(connector: Connector): BounceSource | undefined {
  const source = (connector as Partial<BounceReporting>).bounces;
  return source && typeof source.read === 'function' ? source : undefined;
}

/** A webhook event that is also a delivery record (Mailchimp's `cleaned`, with its reason): the hub records it as it comes. */
export interface BounceEvent extends ContactEvent {
  delivery: DeliveryRecord;
}

export function isBounceEvent(event: ContactEvent): event is BounceEvent {
  const delivery = (event as Partial<BounceEvent>).delivery;
  return !!delivery && typeof delivery.email === 'string' && ['sent', 'hard', 'soft'].includes(delivery.outcome);
}

/**
 * What a record says about the address: `mailbox` (a hard bounce of the mailbox: the verdict was wrong
 * if it said safe or risky), `soft` (temporary: shown, changes nothing), `policy` (the receiver refused
 * the sender, its content or reputation, or the address reported abuse: says nothing of the mailbox,
 * shown apart, never flips a verdict), or `sent`.
 */
export type DeliveryKind = 'sent' | 'mailbox' | 'soft' | 'policy';

// Words of the platforms' reasons (HubSpot's hard-bounce reason values, Mailchimp's `abuse`, SMTP texts).
const POLICY_WORDS = /polic|spam|content|reputation|dmarc|spf|dkim|blocked|block ?list|black ?list|abuse|complain|throttl|rate.?limit|5\.7\.\d/i;
const TEMPORARY_WORDS = /mailbox.?full|quota|greylist|temporar|try again|time.?out|4\.\d\.\d+/i;

export function deliveryKind(record: Pick<DeliveryRecord, 'outcome' | 'reasonCode' | 'reasonText'>): DeliveryKind {
  if (record.outcome === 'sent') return 'sent';
  const words = `${record.reasonCode ?? ''} ${record.reasonText ?? ''}`;
  if (POLICY_WORDS.test(words)) return 'policy';
  if (record.outcome === 'soft' || TEMPORARY_WORDS.test(words)) return 'soft';
  return 'mailbox';
}

/** Evidence of a hard bounce, as the corrected verdict carries it in `checks.hardBounce`. */
export interface HardBounceEvidence {
  platform: string;
  at: string;
  reasonCode?: string;
}

export const HARD_BOUNCE_REASON = 'hard_bounce';

/**
 * The verdict a hard bounce of the mailbox proves: invalid, reason `hard_bounce`, the platform as its
 * source (`checks.hardBounce`), dated at the bounce. The engine's checks of the earlier verdict stay as
 * they were (they are what was seen then). Not billable: nothing was bought.
 */
export function hardBounceVerification(held: Verification | undefined, address: { email: string; normalized: string }, evidence: HardBounceEvidence): Verification {
  const bounce: HardBounceEvidence = { platform: evidence.platform, at: evidence.at, ...(evidence.reasonCode ? { reasonCode: evidence.reasonCode } : {}) };
  return {
    email: held?.email ?? address.email,
    normalized: address.normalized,
    score: 0,
    risk: 'invalid',
    reason: HARD_BOUNCE_REASON,
    checks: { ...(held?.checks ?? undeterminedChecks(true)), hardBounce: bounce },
    ...(held?.deliverability ? { deliverability: held.deliverability } : {}),
    checkedAt: new Date(Date.parse(evidence.at)).toISOString(),
    billable: false,
  };
}
