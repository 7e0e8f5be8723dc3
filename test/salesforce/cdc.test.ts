import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Connection } from 'jsforce';
import { createLogger, type ContactEvent } from '@verify-hub/core';
import { JournalReader } from '@verify-hub/sync-jobs';
import { CdcJournal, ChangeDataCaptureUnavailableError, HUB_CLIENT_ID } from '@verify-hub/connector-salesforce';
import { FakeStreaming } from '../fakes/salesforce/fake-streaming';
import { until } from '../setup/until';

/**
 * Change Data Capture through jsforce's streaming client against a Bayeux server on loopback, read by
 * the host's journal reader (offset and lease in Redis) into a recorder of the event path that drops a
 * repeated dedupe key, as the pipeline's does.
 */
const ORG = '00D000000000001EAA';
const TOKEN = `token-${randomUUID()}`;
const logger = createLogger({ level: 'silent' });

describe('Salesforce Change Data Capture (jsforce streaming, replay ids kept in Redis)', () => {
  let redis: Redis;
  let fake: FakeStreaming;
  const prefix = `test:sf-cdc:${randomUUID()}`;
  let tokens = new Set([TOKEN]);
  const opened: { renew: boolean }[] = [];

  beforeAll(async () => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });
  beforeEach(async () => {
    tokens = new Set([TOKEN]);
    fake = new FakeStreaming({ acceptToken: (token) => tokens.has(token), holdMs: 1000 });
    await fake.listen();
    opened.length = 0;
  });
  afterEach(() => fake.close());

  /** A reader as the Salesforce task starts one: its own CdcJournal, offsets under `key`. */
  function reader(key: string, options: { since?: number; token?: (renew: boolean) => string } = {}) {
    const delivered: (ContactEvent & { connectionId: string })[] = [];
    const seen = new Set<string>();
    const journal = new CdcJournal({
      orgId: ORG,
      objects: ['Contact', 'Lead'],
      since: options.since ?? 0,
      heartbeatMs: 500,
      logger,
      open: async (o) => {
        opened.push(o);
        return new Connection({ instanceUrl: fake.url, accessToken: options.token?.(o.renew) ?? TOKEN, version: '62.0' });
      },
    });
    const journalReader = new JournalReader({
      redis,
      offsetKey: `${prefix}:${key}:offset`,
      leaseKey: `${prefix}:${key}:lease`,
      connectionId: `salesforce-${ORG}`,
      journal,
      enqueue: async (event) => {
        if (seen.has(event.dedupeKey)) return { queued: false };
        seen.add(event.dedupeKey);
        delivered.push(event);
        return { queued: true };
      },
      onUninstalled: async () => undefined,
      logger,
      idleMs: 100,
      errorMs: 200,
    });
    journalReader.start();
    return {
      journal,
      delivered,
      offset: () => redis.get(`${prefix}:${key}:offset`),
      async stop() {
        await journal.close();
        await journalReader.close();
      },
    };
  }

  const created = (entityName: 'Contact' | 'Lead', id: string, email: string) => fake.publish({ entityName, changeType: 'CREATE', recordIds: [id], fields: { Email: email, LastName: 'Doe' } });

  it('hands a new contact and a changed lead address to the event path within 2 s of the change', async () => {
    const r = reader(`fresh-${randomUUID()}`);
    try {
      await until(() => fake.subscribers('Contact') === 1 && fake.subscribers('Lead') === 1, 10_000, 'both channels subscribed');
      const started = Date.now();
      created('Contact', '003000000000001AAA', 'ann@acme-mail.com');
      fake.publish({ entityName: 'Lead', changeType: 'UPDATE', recordIds: ['00Q000000000001AAA'], fields: { Email: 'bob@acme-mail.com' } });
      await until(() => r.delivered.length === 2, 2_000, 'both events handed over');
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(r.delivered.map(({ kind, contactId, email, accountId }) => ({ kind, contactId, email, accountId }))).toEqual([
        { kind: 'created', contactId: '003000000000001AAA', email: 'ann@acme-mail.com', accountId: ORG },
        { kind: 'email_changed', contactId: '00Q000000000001AAA', email: 'bob@acme-mail.com', accountId: ORG },
      ]);
      // A first subscription reads what Salesforce keeps (-2); events from before the connection are skipped by time.
      expect(fake.messages.filter((m) => m.channel === '/meta/subscribe').map((m) => m.replay)).toEqual([-2, -2]);
    } finally {
      await r.stop();
    }
  });

  it('a restarted reader resumes from the replay ids it saved: the changes made while it was down, no gap, no repeat', async () => {
    const key = `restart-${randomUUID()}`;
    const first = reader(key);
    const ids = Array.from({ length: 6 }, (_, i) => `003000000000${String(100 + i)}AAA`);
    try {
      await until(() => fake.subscribers('Contact') === 1, 10_000, 'subscribed');
      created('Contact', ids[0]!, 'c0@acme-mail.com');
      created('Lead', '00Q000000000100AAA', 'l0@acme-mail.com');
      await until(() => first.delivered.length === 2, 5_000, 'first events');
      await until(async () => (await first.offset()) === 'cdc:{"Contact":1,"Lead":1}', 5_000, 'offset saved');
    } finally {
      await first.stop();
    }
    // While no reader runs: more changes on both channels.
    for (const [i, id] of ids.slice(1).entries()) created('Contact', id, `c${i + 1}@acme-mail.com`);
    created('Lead', '00Q000000000101AAA', 'l1@acme-mail.com');
    fake.messages.length = 0;

    const second = reader(key);
    try {
      await until(() => second.delivered.length === 6, 10_000, 'the missed events');
      await until(async () => (await second.offset()) === 'cdc:{"Contact":6,"Lead":2}', 5_000, 'offset saved');
      expect(second.delivered.map((e) => e.contactId)).toEqual(expect.arrayContaining([...ids.slice(1), '00Q000000000101AAA']));
      expect(new Set(second.delivered.map((e) => e.dedupeKey)).size).toBe(6);
      expect(fake.messages.filter((m) => m.channel === '/meta/subscribe').map((m) => [m.subscription, m.replay])).toEqual([
        ['/data/ContactChangeEvent', 1],
        ['/data/LeadChangeEvent', 1],
      ]);
      // And live again afterwards.
      created('Contact', '003000000000200AAA', 'live@acme-mail.com');
      await until(() => second.delivered.length === 7, 5_000, 'a live event after the catch-up');
    } finally {
      await second.stop();
    }
    expect([...first.delivered, ...second.delivered].map((e) => e.contactId).sort()).toEqual([...ids, '003000000000200AAA', '00Q000000000100AAA', '00Q000000000101AAA'].sort());
  });

  it("the hub's own write-backs are not echoed: an update of only EV_ fields, or one made under the hub's client id, starts nothing", async () => {
    const r = reader(`echo-${randomUUID()}`);
    try {
      await until(() => fake.subscribers('Contact') === 1 && fake.subscribers('Lead') === 1, 10_000, 'subscribed');
      fake.publish({ entityName: 'Contact', changeType: 'UPDATE', recordIds: ['003000000000001AAA', '003000000000002AAA'], fields: { EV_Risk__c: 'safe', EV_Score__c: 95, EV_Checked_At__c: '2026-11-27T19:00:00.000Z' }, changedFields: ['EV_Risk__c', 'EV_Score__c', 'EV_Checked_At__c', 'LastModifiedDate', 'SystemModstamp'] });
      fake.publish({ entityName: 'Lead', changeType: 'UPDATE', recordIds: ['00Q000000000001AAA'], fields: { HasOptedOutOfEmail: true }, changeOrigin: `com/salesforce/api/rest/62.0;client=${HUB_CLIENT_ID}` });
      // Someone else's edit of another field: not an address change either, but not ours.
      fake.publish({ entityName: 'Contact', changeType: 'UPDATE', recordIds: ['003000000000003AAA'], fields: { Phone: '+1 555 0100' } });
      // An address change after them is handed over; the three before it were read and started nothing.
      fake.publish({ entityName: 'Contact', changeType: 'UPDATE', recordIds: ['003000000000004AAA'], fields: { Email: 'new@acme-mail.com' } });
      await until(() => r.delivered.length >= 1 && Object.values(r.journal.ignored).reduce((a, b) => a + b, 0) >= 3, 5_000, 'every event read');
      expect(r.delivered.map((e) => e.contactId)).toEqual(['003000000000004AAA']);
      expect(r.journal.ignored).toEqual({ own_write: 2, no_email_change: 1 });
    } finally {
      await r.stop();
    }
  });

  it('skips changes committed before the connection was made (the first sync covered them)', async () => {
    const made = Date.now();
    fake.publish({ entityName: 'Contact', changeType: 'CREATE', recordIds: ['003000000000010AAA'], fields: { Email: 'old@acme-mail.com' }, commitTimestamp: made - 60_000 });
    fake.publish({ entityName: 'Contact', changeType: 'CREATE', recordIds: ['003000000000011AAA'], fields: { Email: 'new@acme-mail.com' }, commitTimestamp: made + 1 });
    const r = reader(`since-${randomUUID()}`, { since: made });
    try {
      await until(() => r.delivered.length === 1, 10_000, 'the newer event');
      expect(r.delivered[0]!.contactId).toBe('003000000000011AAA');
    } finally {
      await r.stop();
    }
  });

  it('a replay id past the retention is a gap: logged, and reading goes on from the oldest event kept', async () => {
    const key = `expired-${randomUUID()}`;
    await redis.set(`${prefix}:${key}:offset`, 'cdc:{"Contact":2,"Lead":null}');
    for (let i = 0; i < 5; i++) created('Contact', `00300000000002${i}AAA`, `gap${i}@acme-mail.com`);
    fake.expire('Contact', 3);
    const r = reader(key);
    try {
      await until(() => r.delivered.length === 2, 10_000, 'the events still kept');
      expect(r.delivered.map((e) => e.contactId)).toEqual(['003000000000023AAA', '003000000000024AAA']);
      expect(fake.messages.filter((m) => m.channel === '/meta/subscribe' && m.subscription === '/data/ContactChangeEvent').map((m) => [m.replay, m.successful])).toEqual([
        [2, false],
        [-2, true],
      ]);
    } finally {
      await r.stop();
    }
  });

  it('a refused session is renewed once, from the same replay ids', async () => {
    // The stored token has expired; the connector's refresh gives a new one.
    const r = reader(`renew-${randomUUID()}`, { token: (renew) => (renew ? TOKEN : 'expired-token') });
    try {
      await until(() => fake.subscribers('Contact') === 1 && fake.subscribers('Lead') === 1, 10_000, 'subscribed with a new token');
      expect(opened.map((o) => o.renew)).toEqual([false, true]);
    } finally {
      await r.stop();
    }
  });

  it('an org without Change Data Capture (Professional) refuses the channel: the journal says so plainly', async () => {
    fake.changeDataCapture = false;
    const journal = new CdcJournal({ orgId: ORG, objects: ['Contact'], since: 0, logger, open: async () => new Connection({ instanceUrl: fake.url, accessToken: TOKEN, version: '62.0' }) });
    try {
      const refused = await journal.earliest().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ChangeDataCaptureUnavailableError);
      expect((refused as Error).message).toMatch(/Change Data Capture is not in its edition/);
    } finally {
      await journal.close();
    }
  });
  it('closing while Salesforce has not answered the subscription lets go at once, leaving nothing retrying', async () => {
    // No CometD endpoint at this address: Faye's handshake is answered 404 and retried.
    const journal = new CdcJournal({ orgId: ORG, objects: ['Contact', 'Lead'], since: 0, logger, open: async () => new Connection({ instanceUrl: `${fake.url}/elsewhere`, accessToken: TOKEN, version: '62.0' }) });
    const read = journal.earliest();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await journal.close();
    await expect(read).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
