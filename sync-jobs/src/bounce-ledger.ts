import {
  deliveryKind,
  hardBounceVerification,
  normalizeEmail,
  type DeliveryKind,
  type DeliveryRecord,
  type Verification,
} from '@verify-hub/core';
import type { Redis } from 'ioredis';
import type { Keys } from './keys';
import { syncMetrics } from './metrics';
import type { RedisVerificationCache } from './redis-cache';
import { accuracyReason, type HeldVerdict, type LedgerAddress } from './accuracy-report';

const DAY_MS = 86_400_000;
/** Platforms date sends to the second: a verdict checked within this of a send counts as held at it. */
const CLOCK_SLACK_MS = 2000;
const SCAN_COUNT = 1000;
type Evidence = NonNullable<LedgerAddress['hard']>;

/** A contact whose cached verdict a hard bounce just corrected: written back to its platform. */
export interface Correction {
  contactId: string;
  email: string;
  verification: Verification;
}

/**
 * The bounce ledger of each connection, in Redis: one hash per connection, one field per address and
 * kind of evidence (`<address>|sent`, `|hard`, `|soft`, `|policy`, `|verdict`, `|corrected`). Bounce
 * evidence and the joined verdict are set only when absent (HSETNX), so the same bounce read twice, or
 * pushed by a webhook and read again, counts once, whichever process records it. The last send is kept.
 * The hash expires with the run data's retention after its last change, and addresses whose evidence is
 * all older than that are dropped when the ledger is read; privacy deletion erases an address's fields.
 */
export class BounceLedger {
  private readonly retentionMs: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly cache: RedisVerificationCache,
    options: { retentionDays: number },
  ) {
    this.retentionMs = options.retentionDays * DAY_MS;
  }

  /**
   * Records one page of a connection's delivery records: joins each new address to the verdict held for
   * it when it was sent to, keeps the evidence, and corrects the cached verdict of every address held
   * safe or risky that hard-bounced for the mailbox (returned, to be written back to the platform).
   */
  async record(connection: { id: string; platform: string }, records: DeliveryRecord[]): Promise<Correction[]> {
    const key = this.keys.bounceLedger(connection.id);
    const byAddress = new Map<string, { normalized: string; records: DeliveryRecord[] }>();
    for (const record of records) {
      const normalized = normalizedForm(record.email);
      if (!normalized) continue;
      const entry = byAddress.get(matchKey(normalized)) ?? { normalized, records: [] };
      entry.records.push(record);
      byAddress.set(matchKey(normalized), entry);
    }
    if (byAddress.size === 0) return [];
    const addresses = [...byAddress.keys()];
    await this.joinVerdicts(key, byAddress);
    const now = Date.now();
    const existing = await this.redis.hmget(key, ...addresses.flatMap((a) => [`${a}|sent`, `${a}|policy`]));
    const write = this.redis.multi();
    // Index in the MULTI of each HSETNX of bounce evidence, to learn which were new.
    const order: { address: string; kind: DeliveryKind; record: DeliveryRecord; at: number }[] = [];
    let commands = 0;
    addresses.forEach((address, i) => {
      let lastSent = parseEvidence(existing[2 * i])?.at;
      const hasPolicy = existing[2 * i + 1] !== null;
      for (const record of byAddress.get(address)!.records) {
        const kind = deliveryKind(record);
        if (kind === 'sent') {
          if (!lastSent || Date.parse(record.at) > Date.parse(lastSent)) {
            write.hset(key, `${address}|sent`, JSON.stringify(evidenceOf(record, connection.platform)));
            commands++;
            lastSent = record.at;
          }
          continue;
        }
        // A member merely listed as cleaned is outweighed by a policy record of the same address.
        if (kind === 'mailbox' && record.statusOnly && hasPolicy) continue;
        write.hsetnx(key, `${address}|${kind === 'mailbox' ? 'hard' : kind}`, JSON.stringify(evidenceOf(record, connection.platform)));
        order.push({ address, kind, record, at: commands++ });
      }
    });
    write.sadd(this.keys.bounceConnections(), connection.id).pexpire(key, this.retentionMs);
    const answers = (await write.exec()) ?? [];
    const fresh = order.filter((o) => answers[o.at]?.[1] === 1);
    for (const { kind } of fresh) syncMetrics.bounceRecords.inc({ platform: connection.platform, kind });
    const verdicts = await this.verdictsOf(key, fresh.map((f) => f.address));
    for (const { address, kind } of fresh) syncMetrics.bounceVerdicts.inc({ verdict: verdicts.get(address)?.risk ?? 'not_verified', kind });
    // A bare "cleaned" status cannot tell a bounce from an abuse report: it is counted, never acted on.
    const hardOnes = fresh.filter((f) => f.kind === 'mailbox' && !f.record.statusOnly);
    return this.correct(key, connection.platform, hardOnes.map(({ address, record }) => ({ address, record, normalized: byAddress.get(address)!.normalized })), now);
  }

  /** The verdict held for each new address when it was first sent to: the cache's, unless made after; else what the platform holds from the hub's last write. */
  private async joinVerdicts(key: string, byAddress: Map<string, { normalized: string; records: DeliveryRecord[] }>): Promise<void> {
    const addresses = [...byAddress.keys()];
    const have = await this.redis.hmget(key, ...addresses.map((a) => `${a}|verdict`));
    const missing = addresses.filter((_, i) => have[i] === null);
    if (missing.length === 0) return;
    const cached = await this.cache.held(missing.map((a) => byAddress.get(a)!.normalized));
    const write = this.redis.multi();
    for (const address of missing) {
      const { normalized, records } = byAddress.get(address)!;
      const firstSeen = Math.min(...records.map((r) => Date.parse(r.at)).filter(Number.isFinite));
      const v = cached.get(normalized);
      const platformHeld = records.find((r) => r.heldOnPlatform)?.heldOnPlatform;
      let held: HeldVerdict | undefined;
      if (v && !(Date.parse(v.checkedAt) > firstSeen + CLOCK_SLACK_MS)) held = { risk: v.risk, reason: v.reason, score: v.score, checkedAt: v.checkedAt, why: accuracyReason(v), from: 'cache', cacheKey: normalized };
      else if (platformHeld) held = { ...platformHeld, why: accuracyReason({ reason: platformHeld.reason ?? '', checks: {} }), from: 'platform' };
      if (held) write.hsetnx(key, `${address}|verdict`, JSON.stringify(held));
    }
    await write.exec();
  }

  private async verdictsOf(key: string, addresses: string[]): Promise<Map<string, HeldVerdict>> {
    const unique = [...new Set(addresses)];
    if (unique.length === 0) return new Map();
    const raw = await this.redis.hmget(key, ...unique.map((a) => `${a}|verdict`));
    return new Map(unique.flatMap((a, i) => (raw[i] ? [[a, JSON.parse(raw[i]!) as HeldVerdict] as const] : [])));
  }

  /**
   * A hard bounce of the mailbox replaces a safe or risky verdict in the cache with invalid (`hard_bounce`),
   * kept for the retention; an address with no cached verdict left is corrected when the verdict it was
   * held under said safe or risky. Each address is corrected once (`|corrected`, set only when absent).
   */
  private async correct(key: string, platform: string, hard: { address: string; normalized: string; record: DeliveryRecord }[], now: number): Promise<Correction[]> {
    if (hard.length === 0) return [];
    const verdicts = await this.verdictsOf(key, hard.map((h) => h.address));
    // The cache keeps the local part's case: the form the verdict was found under, and the one this record gives.
    const formsOf = (h: (typeof hard)[number]) => [...new Set([verdicts.get(h.address)?.cacheKey, h.normalized].filter((f): f is string => !!f))];
    const cached = await this.cache.held([...new Set(hard.flatMap(formsOf))]);
    const corrections: Correction[] = [];
    const stored: Verification[] = [];
    for (const h of hard) {
      const forms = formsOf(h);
      const held = forms.map((form) => cached.get(form)).filter((v): v is Verification => !!v);
      const wasRisk = held[0]?.risk ?? verdicts.get(h.address)?.risk;
      if (wasRisk !== 'safe' && wasRisk !== 'risky') continue;
      if ((await this.redis.hsetnx(key, `${h.address}|corrected`, new Date(now).toISOString())) === 0) continue;
      const evidence = { platform, at: h.record.at, reasonCode: h.record.reasonCode };
      const verification = hardBounceVerification(held[0], { email: h.record.email, normalized: h.normalized }, evidence);
      corrections.push({ contactId: h.record.contactId, email: h.record.email, verification });
      for (const form of forms) if (form === h.normalized || cached.has(form)) stored.push(form === h.normalized ? verification : { ...verification, normalized: form });
    }
    if (corrections.length) {
      await this.cache.keepCorrected(stored, this.retentionMs);
      syncMetrics.verdictsCorrected.inc({ platform }, corrections.length);
    }
    return corrections;
  }

  /** Every address of a connection's ledger, as the report reads it; addresses past the retention are dropped on the way. */
  async addresses(connectionId: string, now = Date.now()): Promise<LedgerAddress[]> {
    const key = this.keys.bounceLedger(connectionId);
    const byAddress = new Map<string, LedgerAddress>();
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(key, cursor, 'COUNT', SCAN_COUNT);
      for (let i = 0; i < flat.length; i += 2) {
        const field = flat[i]!;
        const bar = field.lastIndexOf('|');
        const address = field.slice(0, bar);
        const entry = byAddress.get(address) ?? { address };
        const value = flat[i + 1]!;
        const part = field.slice(bar + 1);
        if (part === 'verdict') entry.verdict = JSON.parse(value) as HeldVerdict;
        else if (part === 'corrected') entry.corrected = value;
        else if (part === 'sent' || part === 'hard' || part === 'soft' || part === 'policy') entry[part] = parseEvidence(value);
        byAddress.set(address, entry);
      }
      cursor = next;
    } while (cursor !== '0');
    const kept: LedgerAddress[] = [];
    const expired: string[] = [];
    for (const entry of byAddress.values()) {
      if (latest(entry) < now - this.retentionMs) expired.push(entry.address);
      else kept.push(entry);
    }
    if (expired.length) await this.redis.hdel(key, ...expired.flatMap((a) => FIELDS.map((f) => `${a}|${f}`)));
    return kept;
  }

  async connectionIds(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.bounceConnections())).sort();
  }

  /**
   * Privacy deletion: the addresses' fields in every connection's ledger, and in the deleting
   * connection's ledger those of its contact id (HubSpot names only the id). Returns how many
   * addresses were erased.
   */
  async erase(request: { connectionId: string; contactId?: string; emails: Iterable<string> }): Promise<number> {
    const addresses = new Set([...request.emails].map(normalizedForm).filter((n): n is string => !!n).map(matchKey));
    let erased = 0;
    for (const id of await this.connectionIds()) {
      const held = new Set(addresses);
      if (id === request.connectionId && request.contactId) for (const entry of await this.addresses(id)) if (heldBy(entry, request.contactId)) held.add(entry.address);
      for (const address of held) if ((await this.redis.hdel(this.keys.bounceLedger(id), ...FIELDS.map((f) => `${address}|${f}`))) > 0) erased++;
    }
    return erased;
  }

  /** A connection removed: its ledger, cursor and lease go with it. */
  async forget(connectionId: string): Promise<void> {
    await this.redis.del(this.keys.bounceLedger(connectionId), this.keys.bounceCursor(connectionId), this.keys.bounceLease(connectionId));
    await this.redis.srem(this.keys.bounceConnections(), connectionId);
  }
}

const FIELDS = ['sent', 'hard', 'soft', 'policy', 'verdict', 'corrected'] as const;

function evidenceOf(record: DeliveryRecord, platform: string): Evidence {
  return {
    at: record.at,
    platform,
    contactId: record.contactId,
    ...(record.reasonCode ? { code: record.reasonCode } : {}),
    ...(record.reasonText ? { text: record.reasonText } : {}),
    ...(record.sendId ? { sendId: record.sendId } : {}),
    ...(record.statusOnly ? { statusOnly: true } : {}),
  };
}

function heldBy(entry: LedgerAddress, contactId: string): boolean {
  return [entry.sent, entry.hard, entry.soft, entry.policy].some((e) => e?.contactId === contactId);
}

function parseEvidence(raw: string | null | undefined): Evidence | undefined {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Evidence;
  } catch {
    return undefined;
  }
}

function latest(entry: LedgerAddress): number {
  return Math.max(...[entry.sent, entry.hard, entry.soft, entry.policy].map((e) => (e ? Date.parse(e.at) : 0)).filter(Number.isFinite), entry.corrected ? Date.parse(entry.corrected) : 0);
}

function normalizedForm(email: string): string | undefined {
  const result = normalizeEmail(email);
  return result.ok ? result.normalized : undefined;
}

/** Addresses are matched without regard to case (as privacy erasure does); the cache is keyed by the normalised form. */
function matchKey(normalized: string): string {
  return normalized.toLowerCase();
}
