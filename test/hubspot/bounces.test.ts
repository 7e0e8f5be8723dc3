import { hubspotPlatform } from '@verify-hub/connector-hubspot';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline } from '../sync-jobs/helpers';
import { privateConnection, verification } from './helpers';

/**
 * HubSpot's bounce source through the pipeline: the contacts' hard-bounce reason and last marketing send,
 * read with the CRM search into the bounce ledger; a hard bounce of the mailbox corrects a safe verdict
 * (cache and ev_risk written back once), a policy reason never does, and a second read changes nothing.
 */
describe('HubSpot bounces', () => {
  const fake = new FakeHubSpot();
  let pipeline: SyncPipeline;
  const PORTAL = '3601';
  const emails = Array.from({ length: 250 }, (_, i) => `hs${i}@example.com`);
  let ids: string[] = [];

  beforeAll(async () => {
    await fake.start();
    fake.addPortal({ portalId: PORTAL, token: 'bounce-token', windowLimit: 1000 });
    pipeline = platformPipeline('hsbounces', { hubspot: hubspotPlatform });
    const record = privateConnection(fake, PORTAL, 'bounce-token');
    await pipeline.connections!.save(record);
    await (await pipeline.openConnector('hubspot', record.id)).ensureSchema();
    const sentAt = Date.now() - 3_600_000;
    // The hub verified them an hour before the send: safe, with their values on the contact.
    ids = fake.addContacts(PORTAL, emails.map((email) => ({ email, properties: { ev_risk: 'safe', ev_score: '91', ev_reason: 'deliverable' } })));
    await pipeline.cache.setMany(emails.map((email) => verification(email, { checkedAt: new Date(sentAt - 3_600_000).toISOString() })));
    const bounces = new Map<string, { reason: string; text?: string }>();
    for (let i = 0; i < 10; i++) bounces.set(ids[i * 20]!, { reason: 'UNKNOWN_USER', text: '550 5.1.1 user unknown' });
    bounces.set(ids[1]!, { reason: 'POLICY', text: '550 5.7.1 message rejected by policy' });
    bounces.set(ids[2]!, { reason: 'SPAM' });
    bounces.set(ids[3]!, { reason: 'MAILBOX_FULL' });
    fake.sendEmail(PORTAL, ids, sentAt, bounces);
  });
  afterAll(async () => {
    await pipeline.purge();
    await pipeline.close();
    await fake.stop();
  });

  it('reads the hard bounces and the sends, corrects the mailbox bounces only, and counts once on a second read', async () => {
    fake.resetCalls();
    const [read] = await pipeline.readBounces(`hubspot-${PORTAL}`);
    expect(read).toMatchObject({ corrected: 10, written: 10, writeFailed: 0 });
    // 13 hard-bounced contacts (one search page), 250 sent (two pages of 200): 3 searches, and one batch update.
    expect(fake.callsTo(/contacts\/search$/)).toHaveLength(3);
    expect(fake.callsTo(/batch\/update$/)).toHaveLength(1);
    const report = (await pipeline.accuracy(30)).overall.verdicts.find((v) => v.verdict === 'safe')!;
    expect(report).toMatchObject({ sent: 250, hardBounced: 10, softBounced: 1, policy: 2, hardBounceRate: 0.04 });
    const contact = (i: number) => fake.portal(PORTAL).contacts.get(ids[i]!)!.properties;
    expect(contact(0)).toMatchObject({ ev_risk: 'invalid', ev_reason: 'hard_bounce', ev_score: '0' });
    expect([1, 2, 3, 4].map((i) => contact(i).ev_risk)).toEqual(['safe', 'safe', 'safe', 'safe']);
    const held = await pipeline.cache.held([emails[0]!, emails[1]!]);
    expect([held.get(emails[0]!)?.reason, held.get(emails[1]!)?.reason]).toEqual(['hard_bounce', 'deliverable']);

    fake.resetCalls();
    const [again] = await pipeline.readBounces(`hubspot-${PORTAL}`);
    expect(again).toMatchObject({ corrected: 0, written: 0 });
    expect(fake.callsTo(/batch\/update$/)).toHaveLength(0);
    expect((await pipeline.accuracy(30)).overall.verdicts.find((v) => v.verdict === 'safe')).toEqual({ ...report });
  });
});
