import { normalizeEmail, type Contact, type ContactEvent, type Verification, runScript } from '@verify-hub/core';
import type { Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { BounceLedger } from './bounce-ledger';
import type { ReportRow } from './contracts';
import type { Keys } from './keys';
import type { ChunkJobData, EventJobData, RecheckJobData } from './queues';

/** What one erasure removed: counts only, so it can be logged (it never holds the address). */
export interface ErasureSummary {
  cacheEntries: number;
  reportRows: number;
  failureRows: number;
  purchases: number;
  eventJobs: number;
  contactsInJobs: number;
  /** Addresses erased from the connections' bounce ledgers. */
  bounceEntries: number;
}

/** Replaces list item ARGV[1] with ARGV[3] only if it still holds ARGV[2] (report lists only grow, so an index stays put). */
const REPLACE_ITEM = `
if redis.call('LINDEX', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('LSET', KEYS[1], ARGV[1], ARGV[3]) return 1 end
return 0`;

const ROW_BATCH = 1000;
const JOB_STATES = ['waiting', 'delayed', 'prioritized', 'waiting-children', 'completed', 'failed'] as const;

/**
 * Erases one contact from everything the hub keeps (a platform's privacy deletion): its cached result,
 * its rows in every run's report and failures list, the run's record of its purchase, its bounce
 * ledger entries (bounce-ledger.ts), and the webhook,
 * chunk and re-check jobs still holding it. A report row becomes a tombstone that keeps what the
 * ledger counts (risk, score, reason, outcome) and holds neither address nor contact id, so a run's
 * totals do not change. Idempotent: erasing again finds nothing.
 *
 * HubSpot's deletion names only the contact id: the addresses are those of the connection's report
 * rows with that id, and every row, cache entry and job holding one of them goes too (the address may
 * also sit in another connection's runs: erased there as well). A job running right now cannot be
 * changed; what it writes afterwards is not erased (a second delivery of the deletion would).
 */
export class PrivacyEraser {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly queues: { chunks: Queue; events: Queue },
    private readonly bounces?: Pick<BounceLedger, 'erase'>,
  ) {}

  async erase(event: Pick<ContactEvent, 'contactId' | 'email'> & { connectionId: string }): Promise<ErasureSummary> {
    const summary: ErasureSummary = { cacheEntries: 0, reportRows: 0, failureRows: 0, purchases: 0, eventJobs: 0, contactsInJobs: 0, bounceEntries: 0 };
    // Matched without regard to case (an address's owner is erased whatever case a platform kept);
    // the cache is keyed by the exact normalised forms, collected as rows match.
    const addresses = new Set<string>();
    const cachedForms = new Set<string>();
    const learn = (email: string) => {
      addresses.add(matchKey(email));
      cachedForms.add(normalized(email));
    };
    if (event.email) learn(event.email);
    const runIds = await this.redis.zrange(this.keys.runIndex(), '0', '-1');
    const connectionOf = new Map<string, string | undefined>();
    for (const id of runIds) connectionOf.set(id, (await this.redis.hget(this.keys.run(id), 'connectionId')) ?? undefined);

    const isContact = (runId: string, row: { contactId?: string; email?: string }): boolean => {
      const held = (connectionOf.get(runId) === event.connectionId && row.contactId === event.contactId) || (!!row.email && addresses.has(matchKey(row.email)));
      if (held && row.email) cachedForms.add(normalized(row.email));
      return held;
    };
    // First the connection's own rows, to learn the addresses behind the contact id.
    for (const id of runIds) {
      if (connectionOf.get(id) !== event.connectionId) continue;
      await this.eachRow(this.keys.report(id), (row: ReportRow) => {
        if (row.contactId === event.contactId && row.email) learn(row.email);
      });
    }
    for (const id of runIds) {
      summary.reportRows += await this.tombstone(this.keys.report(id), (row) => isContact(id, row), (row: ReportRow) => ({ contactId: '', email: '', risk: row.risk, score: row.score, reason: row.reason, outcome: row.outcome, erased: true }));
      summary.failureRows += await this.tombstone(this.keys.failures(id), (row) => isContact(id, row), () => ({ contactId: '', email: '', erased: true }));
      summary.purchases += await this.forgetPurchases(this.keys.purchases(id), addresses);
      await this.forgetAnswers(this.keys.answers(id), addresses);
    }
    for (const address of cachedForms) summary.cacheEntries += await this.redis.del(this.keys.cache(address));
    if (this.bounces) summary.bounceEntries = await this.bounces.erase({ connectionId: event.connectionId, contactId: event.contactId, emails: cachedForms });

    const holds = (contact: Pick<Contact, 'id' | 'email'>, connectionId: string | undefined) =>
      (connectionId === event.connectionId && contact.id === event.contactId) || (!!contact.email && addresses.has(matchKey(contact.email)));
    for (const job of await this.jobs(this.queues.events)) {
      const e = (job.data as EventJobData).event;
      if (holds({ id: e.contactId, email: e.email ?? '' }, e.connectionId) && (await removed(job))) summary.eventJobs++;
    }
    for (const job of await this.jobs(this.queues.chunks)) summary.contactsInJobs += await this.dropFromChunkJob(job, holds, connectionOf);
    return summary;
  }

  private async eachRow<T>(key: string, visit: (row: T, index: number) => void): Promise<void> {
    for (let start = 0; ; start += ROW_BATCH) {
      const rows = await this.redis.lrange(key, start, start + ROW_BATCH - 1);
      rows.forEach((raw, i) => visit(JSON.parse(raw) as T, start + i));
      if (rows.length < ROW_BATCH) return;
    }
  }

  private async tombstone<T extends { contactId?: string; email?: string }>(key: string, matches: (row: T) => boolean, replacement: (row: T) => object): Promise<number> {
    const found: { index: number; row: T }[] = [];
    await this.eachRow(key, (row: T, index) => {
      if (matches(row)) found.push({ index, row });
    });
    let replaced = 0;
    for (const { index, row } of found) {
      // Compared against the stored text, not a re-serialisation of it.
      const stored = await this.redis.lindex(key, index);
      if (stored === null) continue;
      replaced += (await runScript(this.redis, REPLACE_ITEM, 1, key, String(index), stored, JSON.stringify(replacement(row)))) as number;
    }
    return replaced;
  }

  /** Purchases are kept as `<address>|<checkedAt>`. */
  private async forgetPurchases(key: string, addresses: Set<string>): Promise<number> {
    const members: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.sscan(key, cursor, 'COUNT', 1000);
      members.push(...batch.filter((member) => addresses.has(matchKey(member.slice(0, member.lastIndexOf('|'))))));
      cursor = next;
    } while (cursor !== '0');
    return members.length ? this.redis.srem(key, ...members) : 0;
  }

  /** A running run's answers are kept by address (run-answers.ts). */
  private async forgetAnswers(key: string, addresses: Set<string>): Promise<void> {
    const fields: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.hscan(key, cursor, 'COUNT', 1000);
      for (let i = 0; i < batch.length; i += 2) if (addresses.has(matchKey(batch[i]!))) fields.push(batch[i]!);
      cursor = next;
    } while (cursor !== '0');
    if (fields.length) await this.redis.hdel(key, ...fields);
  }

  private async jobs(queue: Queue): Promise<Job[]> {
    return (await queue.getJobs([...JOB_STATES])).filter((job): job is Job => !!job);
  }

  /** Takes the contact out of a chunk or re-check job's contacts (and a chunk's carried results); a re-check left with none is removed. */
  private async dropFromChunkJob(job: Job, holds: (contact: Pick<Contact, 'id' | 'email'>, connectionId: string | undefined) => boolean, connectionOf: Map<string, string | undefined>): Promise<number> {
    const data = job.data as Partial<ChunkJobData & RecheckJobData>;
    if (!Array.isArray(data.contacts)) return 0;
    const connectionId = data.connectionId ?? (data.runId ? connectionOf.get(data.runId) : undefined);
    const kept = data.contacts.filter((c) => !holds(c, connectionId));
    const carry = data.carry?.filter((v: Verification) => !holds({ id: '', email: v.normalized }, undefined));
    const dropped = data.contacts.length - kept.length;
    if (dropped === 0 && carry?.length === data.carry?.length) return 0;
    if (job.name === 'recheck' && kept.length === 0 && (await removed(job))) return dropped;
    const reasons = data.reasons ? Object.fromEntries(Object.entries(data.reasons).filter(([id]) => kept.some((c) => c.id === id))) : undefined;
    await job.updateData({ ...data, contacts: kept, ...(carry ? { carry } : {}), ...(reasons ? { reasons } : {}) });
    return dropped;
  }
}

function normalized(email: string): string {
  const result = normalizeEmail(email);
  return result.ok ? result.normalized : email.trim();
}

function matchKey(email: string): string {
  return normalized(email).toLowerCase();
}

/** A job being worked on is locked and cannot be removed: it is left (see the class comment). */
async function removed(job: Job): Promise<boolean> {
  try {
    await job.remove();
    return true;
  } catch {
    return false;
  }
}
