import { deliveryKind, isFreshResult, type BounceSource, type Connector, type ContactResult, type DeliveryPage, type DeliveryRecord, type Verification } from '@verify-hub/core';
import { accuracyReport, type SyncPipeline } from '@verify-hub/sync-jobs';
import { platformPipeline } from './helpers';

const NOW = Date.now();
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();

function verdict(email: string, risk: Verification['risk'], reason: string, checks: Partial<Verification['checks']> = {}): Verification {
  return {
    email,
    normalized: email,
    score: { safe: 95, risky: 55, invalid: 2, unknown: 0 }[risk],
    risk,
    reason,
    checks: { syntax: true, mx: true, smtp: risk !== 'invalid', smtpCheck: null, disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none', ...checks },
    checkedAt: at(600),
    billable: true,
  };
}

/** A platform whose bounce source answers the pages it is given (each read starts over), and whose writes are kept. */
class BouncingPlatform {
  pages: DeliveryRecord[][] = [];
  readonly writes: ContactResult[] = [];
  reads = 0;
  connector(): Connector & { bounces: BounceSource } {
    const source: BounceSource = {
      read: async (cursor): Promise<DeliveryPage> => {
        this.reads++;
        const index = cursor === undefined || cursor === 'end' ? 0 : Number(cursor);
        const done = index + 1 >= this.pages.length;
        return { records: this.pages[index] ?? [], cursor: done ? 'end' : String(index + 1), done };
      },
      calls: () => this.reads,
    };
    return {
      platform: 'bouncer',
      bounces: source,
      ensureSchema: async () => ({ created: [], existing: [] }) as never,
      pull: async () => ({ contacts: [] }),
      write: async (results) => {
        this.writes.push(...results);
        return { written: results.length, unchanged: [], failed: [] };
      },
    };
  }
}

const send = (email: string, contactId: string, minutesAgo = 60): DeliveryRecord => ({ contactId, email, outcome: 'sent', at: at(minutesAgo), sendId: 'c1' });
const bounce = (email: string, contactId: string, outcome: 'hard' | 'soft', extra: Partial<DeliveryRecord> = {}): DeliveryRecord => ({ contactId, email, outcome, at: at(59), sendId: 'c1', ...extra });

describe('the bounce ledger', () => {
  let pipeline: SyncPipeline;
  const platform = new BouncingPlatform();

  beforeAll(async () => {
    pipeline = platformPipeline('bounces', { bouncer: () => platform.connector() }, { retentionDays: 30 });
    await pipeline.connections!.save({ id: 'b1', platform: 'bouncer', label: 'Bouncer', createdAt: new Date().toISOString(), credentials: {} });
    await pipeline.cache.setMany([
      verdict('safe.hard@example.com', 'safe', 'deliverable'),
      verdict('safe.soft@example.com', 'safe', 'deliverable'),
      verdict('safe.policy@example.com', 'safe', 'deliverable'),
      verdict('safe.ok@example.com', 'safe', 'deliverable'),
      verdict('Risky.Role@example.com', 'risky', 'role_account', { roleAccount: true }),
      verdict('risky.cleaned@example.com', 'risky', 'catch_all', { catchAll: true }),
      verdict('invalid.sent@example.com', 'invalid', 'mailbox_not_found'),
      verdict('invalid.bounced@example.com', 'invalid', 'mailbox_not_found'),
    ]);
    platform.pages = [
      ['safe.hard', 'safe.soft', 'safe.policy', 'safe.ok', 'Risky.Role', 'risky.cleaned', 'invalid.sent', 'invalid.bounced', 'never.verified'].map((n, i) => send(`${n}@example.com`, `id${i}`)),
      [
        bounce('safe.hard@example.com', 'id0', 'hard', { reasonCode: 'UNKNOWN_USER' }),
        bounce('safe.soft@example.com', 'id1', 'hard', { reasonCode: 'MAILBOX_FULL' }),
        bounce('safe.policy@example.com', 'id2', 'hard', { reasonText: '550 5.7.1 rejected by policy: sender reputation' }),
        // The platform keeps the local part's case: the ledger matches it without regard to case.
        bounce('risky.role@example.com', 'id4', 'hard'),
        bounce('risky.cleaned@example.com', 'id5', 'hard', { reasonCode: 'cleaned', statusOnly: true, sendId: undefined }),
        bounce('invalid.bounced@example.com', 'id7', 'hard'),
      ],
    ];
  });
  afterAll(async () => {
    await pipeline.purge();
    await pipeline.close();
  });

  it('classifies what a bounce says about the mailbox', () => {
    expect(deliveryKind({ outcome: 'hard', reasonCode: 'UNKNOWN_USER' })).toBe('mailbox');
    expect(deliveryKind({ outcome: 'hard' })).toBe('mailbox');
    expect(deliveryKind({ outcome: 'hard', reasonCode: 'MAILBOX_FULL' })).toBe('soft');
    expect(deliveryKind({ outcome: 'soft' })).toBe('soft');
    expect(deliveryKind({ outcome: 'hard', reasonCode: 'abuse' })).toBe('policy');
    expect(deliveryKind({ outcome: 'soft', reasonText: '421 4.7.0 temporarily deferred: IP reputation' })).toBe('policy');
    expect(deliveryKind({ outcome: 'hard', reasonCode: 'SPAM' })).toBe('policy');
    expect(deliveryKind({ outcome: 'sent' })).toBe('sent');
  });

  it('joins each bounce to the verdict held, counts it once, and corrects only hard bounces of the mailbox of safe or risky addresses', async () => {
    const [first] = await pipeline.readBounces('b1');
    expect(first).toMatchObject({ pages: 2, records: 15, corrected: 2, written: 2, writeFailed: 0 });
    expect(platform.writes.map((w) => [w.contact.id, w.contact.email, w.verification.risk, w.verification.reason])).toEqual([
      ['id0', 'safe.hard@example.com', 'invalid', 'hard_bounce'],
      ['id4', 'risky.role@example.com', 'invalid', 'hard_bounce'],
    ]);
    const held = await pipeline.cache.held(['safe.hard@example.com', 'Risky.Role@example.com', 'safe.soft@example.com', 'safe.policy@example.com', 'risky.cleaned@example.com', 'invalid.bounced@example.com']);
    expect(Object.fromEntries([...held].map(([k, v]) => [k, `${v.risk}/${v.reason}`]))).toEqual({
      'safe.hard@example.com': 'invalid/hard_bounce',
      'Risky.Role@example.com': 'invalid/hard_bounce',
      'safe.soft@example.com': 'safe/deliverable',
      'safe.policy@example.com': 'safe/deliverable',
      'risky.cleaned@example.com': 'risky/catch_all',
      'invalid.bounced@example.com': 'invalid/mailbox_not_found',
    });
    const corrected = held.get('safe.hard@example.com')!;
    expect(corrected.checks.hardBounce).toEqual({ platform: 'bouncer', at: at(59), reasonCode: 'UNKNOWN_USER' });
    // Served as fresh whatever the window: never bought again.
    expect(isFreshResult(corrected, 0)).toBe(true);
    expect((await pipeline.cache.withFreshness(1).getMany(['safe.hard@example.com'])).get('safe.hard@example.com')?.reason).toBe('hard_bounce');

    const report = (await pipeline.accuracy(30)).connections[0]!;
    const row = (v: string) => report.verdicts.find((r) => r.verdict === v)!;
    expect(row('safe')).toMatchObject({ sent: 4, hardBounced: 1, softBounced: 1, policy: 1, hardBounceRate: 0.25 });
    expect(row('risky')).toMatchObject({ sent: 2, hardBounced: 2, softBounced: 0, policy: 0 });
    expect(row('risky').byReason).toMatchObject({ role: { sent: 1, hardBounced: 1 }, catch_all: { sent: 1, hardBounced: 1 } });
    expect(row('invalid')).toMatchObject({ sent: 2, hardBounced: 1, notBounced: 1 });
    expect(row('not_verified')).toMatchObject({ sent: 1, hardBounced: 0 });
    expect(report.corrected).toBe(2);

    // The same bounces read again change nothing.
    const [again] = await pipeline.readBounces('b1');
    expect(again).toMatchObject({ records: 15, corrected: 0, written: 0 });
    expect(platform.writes).toHaveLength(2);
    const { generatedAt: _g, ...same } = (await pipeline.accuracy(30)).connections[0]!;
    const { generatedAt: _g2, ...before } = report;
    expect({ ...same, since: '' }).toEqual({ ...before, since: '' });
  });

  it('a bare "cleaned" status is outweighed by an abuse report of the same address; the figures are the 30- and 90-day windows', async () => {
    await pipeline.bounces.recordPushed((await pipeline.connections!.get('b1'))!, {
      platform: 'bouncer', kind: 'cleaned', accountId: 'a', contactId: 'id5', email: 'risky.cleaned@example.com', occurredAt: NOW, dedupeKey: 'x',
      delivery: { contactId: 'id5', email: 'risky.cleaned@example.com', outcome: 'hard', reasonCode: 'abuse', at: at(58), sendId: 'c1' },
    });
    const row = (await pipeline.accuracy(90)).overall.verdicts.find((r) => r.verdict === 'risky')!;
    expect(row).toMatchObject({ sent: 2, hardBounced: 1, policy: 1 });
    // An address whose last send is older than the window is not in it.
    const old = accuracyReport([{ address: 'a@example.com', verdict: { risk: 'safe', why: 'other', from: 'cache' }, sent: { at: new Date(NOW - 40 * 86_400_000).toISOString(), platform: 'x' } }], 30, NOW);
    expect(old.verdicts.find((r) => r.verdict === 'safe')!.sent).toBe(0);
    expect(accuracyReport([{ address: 'a@example.com', verdict: { risk: 'safe', why: 'other', from: 'cache' }, sent: { at: new Date(NOW - 40 * 86_400_000).toISOString(), platform: 'x' } }], 90, NOW).verdicts.find((r) => r.verdict === 'safe')!.sent).toBe(1);
  });

  it('a privacy deletion erases the address from the ledger, by address or by contact id', async () => {
    const fields = async () => Object.keys(await pipeline.redis.hgetall(pipeline.keys.bounceLedger('b1')));
    expect((await fields()).some((f) => f.startsWith('safe.ok@example.com|'))).toBe(true);
    const byAddress = await pipeline.eraseContact({ connectionId: 'b1', contactId: 'unknown-id', email: 'SAFE.OK@example.com' });
    expect(byAddress.bounceEntries).toBe(1);
    const byId = await pipeline.eraseContact({ connectionId: 'b1', contactId: 'id8' });
    expect(byId.bounceEntries).toBe(1);
    const left = await fields();
    expect(left.some((f) => f.startsWith('safe.ok@example.com|') || f.startsWith('never.verified@example.com|'))).toBe(false);
    expect(left.some((f) => f.startsWith('safe.hard@example.com|'))).toBe(true);
    expect(await pipeline.redis.pttl(pipeline.keys.bounceLedger('b1'))).toBeGreaterThan(29 * 86_400_000);
  });
});
