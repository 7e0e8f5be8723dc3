import { createHubSpotConnectorFactory, HubSpotJournal, JOURNAL_PATH, JOURNAL_SCOPE } from '@verify-hub/connector-hubspot';
import { createLogger, type ContactEvent } from '@verify-hub/core';
import { disconnectUninstalled, JournalReader, type SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { platformPipeline } from '../sync-jobs/helpers';

/**
 * HubSpot's webhooks journal read into the pipeline's event path (the real SyncPipeline, no workers, so
 * every queued event stays countable): after a reader is stopped for a simulated hour, or killed in the
 * middle of an entry, every event is queued exactly once; an offset past the retention is a logged gap;
 * APP_UNINSTALL disconnects the connection.
 */
const fake = new FakeHubSpot();
let pipeline: SyncPipeline;
let nextContact = 5000;
const logLines: string[] = [];
const logger = createLogger({ level: 'info', destination: { write: (line: string) => void logLines.push(line) } });

beforeAll(async () => {
  await fake.start();
  pipeline = platformPipeline('vhjournal', { hubspot: createHubSpotConnectorFactory({ clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret }) }, { eventCoalesceMs: 3_600_000 });
});
afterAll(async () => {
  await pipeline.purge();
  await pipeline.close();
  await fake.stop();
});

/** Publishes `entries` entries of `size` contact creations each, `gapMs` of journal time apart. */
function publish(portalId: string, entries: number, size: number, gapMs = 0): string[] {
  const emails: string[] = [];
  for (let e = 0; e < entries; e++) {
    const events = Array.from({ length: size }, () => {
      const contact = String(nextContact++);
      emails.push(`c${contact}@example.com`);
      return fake.journal.contactCreated(portalId, contact, `c${contact}@example.com`);
    });
    fake.journal.publish(portalId, events);
    fake.journal.advance(gapMs);
  }
  return emails;
}

/** The receivers' event path, recording what each hand-over came to. */
function recordingSink(failAt?: number) {
  const queued = new Map<string, number>();
  let calls = 0;
  return {
    queued,
    calls: () => calls,
    enqueue: async (event: ContactEvent & { connectionId: string }) => {
      calls++;
      if (calls === failAt) throw new Error('killed in the middle of an entry');
      const result = await pipeline.enqueueEvent(event);
      if (result.queued) queued.set(event.email ?? event.contactId, (queued.get(event.email ?? event.contactId) ?? 0) + 1);
      return result;
    },
  };
}

function reader(portalId: string, sink: ReturnType<typeof recordingSink>, extra: { onUninstalled?: () => Promise<unknown> } = {}) {
  const connectionId = `hubspot-${portalId}`;
  return new JournalReader({
    redis: pipeline.redis,
    offsetKey: `${pipeline.keys.prefix}:journal-offset:${connectionId}`,
    leaseKey: `${pipeline.keys.prefix}:journal-lease:${connectionId}`,
    connectionId,
    journal: new HubSpotJournal({ portalId, clientId: fake.oauth.clientId, clientSecret: fake.oauth.clientSecret, apiBase: fake.url, logger }),
    enqueue: sink.enqueue,
    onUninstalled: extra.onUninstalled ?? (async () => undefined),
    logger,
  });
}

describe('the HubSpot webhooks journal reader', () => {
  it('catches up after a simulated hour stopped: every event queued exactly once, each entry read once', async () => {
    fake.addPortal({ portalId: '701' });
    const before = publish('701', 5, 20);
    const sink = recordingSink();
    expect(await reader('701', sink).catchUp()).toEqual({ entries: 5, events: 100, uninstalled: false });
    // Stopped: an hour of traffic, 30 entries two minutes apart.
    const during = publish('701', 30, 20, 120_000);
    const restarted = recordingSink();
    expect(await reader('701', restarted).catchUp()).toEqual({ entries: 30, events: 600, uninstalled: false });
    expect(restarted.calls()).toBe(600);
    expect([...sink.queued.keys(), ...restarted.queued.keys()].sort()).toEqual([...before, ...during].sort());
    expect([...sink.queued.values(), ...restarted.queued.values()].every((n) => n === 1)).toBe(true);
    expect([...fake.journal.fetches.values()].every((n) => n === 1)).toBe(true);
    // Caught up: nothing more to read, nothing fetched again.
    expect(await reader('701', recordingSink()).catchUp()).toEqual({ entries: 0, events: 0, uninstalled: false });
    const counts = await pipeline.queues.events.getJobCounts('delayed', 'waiting');
    expect(counts.delayed! + counts.waiting!).toBe(700);
  });

  it('killed in the middle of an entry, reads that entry again and queues each event once', async () => {
    fake.addPortal({ portalId: '702' });
    const emails = publish('702', 2, 20);
    const crashed = recordingSink(28); // the 8th event of the second entry
    await expect(reader('702', crashed).catchUp()).rejects.toThrow('killed in the middle of an entry');
    expect(crashed.queued.size).toBe(27);
    const restarted = recordingSink();
    expect(await reader('702', restarted).catchUp()).toEqual({ entries: 1, events: 20, uninstalled: false });
    // The second entry again, from its 8th event: the 7 handed over before the kill are not sent again.
    expect(restarted.calls()).toBe(13);
    expect(restarted.queued.size).toBe(13);
    expect([...fake.journal.fetches.values()].slice(-2)).toEqual([1, 2]);
    expect([...crashed.queued.keys(), ...restarted.queued.keys()].sort()).toEqual([...emails].sort());
  });

  it('killed between handing an event over and saving its progress, hands that one event again and the event path drops it', async () => {
    fake.addPortal({ portalId: '706' });
    const emails = publish('706', 1, 5);
    const first = reader('706', recordingSink(4)); // dies on the 4th event
    await expect(first.catchUp()).rejects.toThrow();
    // As if the 3rd event had been handed over but its progress not saved.
    await pipeline.redis.set(`${pipeline.keys.prefix}:journal-offset:hubspot-706:progress`, `${[...fake.journal.fetches.keys()].at(-1)}|2`);
    const restarted = recordingSink();
    expect(await reader('706', restarted).catchUp()).toEqual({ entries: 1, events: 5, uninstalled: false });
    expect(restarted.calls()).toBe(3);
    expect(restarted.queued.size).toBe(2);
    // The 3rd event went twice and was dropped; the 4th and 5th were queued.
    expect([...restarted.queued.keys()].sort()).toEqual(emails.slice(3).sort());
  });

  it('after an outage longer than the retention, says events were lost and reads from the earliest entry kept', async () => {
    fake.addPortal({ portalId: '703' });
    publish('703', 1, 3);
    await reader('703', recordingSink()).catchUp();
    fake.journal.advance(4 * 86_400_000);
    const kept = publish('703', 2, 3);
    const sink = recordingSink();
    logLines.length = 0;
    expect(await reader('703', sink).catchUp()).toEqual({ entries: 2, events: 6, uninstalled: false });
    expect([...sink.queued.keys()].sort()).toEqual(kept.sort());
    expect(logLines.join('\n')).toContain("past the journal's retention; events since then were lost");
  });

  it('disconnects the connection on APP_UNINSTALL and stops reading', async () => {
    fake.addPortal({ portalId: '704' });
    await pipeline.connections!.save({ id: 'hubspot-704', platform: 'hubspot', label: 'Portal 704', createdAt: new Date().toISOString(), credentials: { accessToken: 'x', refreshToken: 'y', expiresAt: Date.now() + 3_600_000 }, settings: { apiBase: fake.url, events: 'journal' } });
    publish('704', 1, 2);
    fake.uninstallApp('704');
    const sink = recordingSink();
    const result = await reader('704', sink, { onUninstalled: () => disconnectUninstalled('hubspot-704', { connections: pipeline.connections!, runs: pipeline, schedules: pipeline.schedules, logger }) }).catchUp();
    expect(result).toEqual({ entries: 2, events: 2, uninstalled: true });
    expect(await pipeline.connections!.get('hubspot-704')).toBeUndefined();
    expect(await pipeline.redis.get(`${pipeline.keys.prefix}:journal-offset:hubspot-704`)).toBeNull();
  });

  it('reads with the app token only, and one process at a time per connection', async () => {
    fake.addPortal({ portalId: '705', token: 'portal-token-705' });
    const portalToken = await fetch(`${fake.url}${JOURNAL_PATH}/earliest?installPortalId=705`, { headers: { Authorization: 'Bearer portal-token-705' } });
    expect(portalToken.status).toBe(401);
    // An app token granted another scope than the one the published operations declare is refused.
    const tokenFor = async (scope: string) =>
      ((await (await fetch(`${fake.url}/oauth/v1/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', client_id: fake.oauth.clientId, client_secret: fake.oauth.clientSecret, scope }) })).json()) as { access_token: string }).access_token;
    const withOldScope = await fetch(`${fake.url}${JOURNAL_PATH}/earliest?installPortalId=705`, { headers: { Authorization: `Bearer ${await tokenFor('developer.webhooks_journal.read')}` } });
    expect(withOldScope.status).toBe(403);
    expect(JOURNAL_SCOPE).toBe('webhooks-journal-data-access');
    publish('705', 1, 1);
    await pipeline.redis.set(`${pipeline.keys.prefix}:journal-lease:hubspot-705`, 'another-process', 'PX', 60_000);
    expect(await reader('705', recordingSink()).catchUp()).toBeUndefined();
    await pipeline.redis.del(`${pipeline.keys.prefix}:journal-lease:hubspot-705`);
    expect(await reader('705', recordingSink()).catchUp()).toEqual({ entries: 1, events: 1, uninstalled: false });
  });

  it('reads answers and events of a shape HubSpot has not published leniently: logged with the request id, skipped, never a crash', async () => {
    fake.addPortal({ portalId: '707' });
    const emails = publish('707', 2, 2);
    // An answer without url/currentOffset (no success schema is published for it): nothing read, the offset stays.
    fake.journal.answerWith({ results: [], status: 'COMPLETE' });
    const sink = recordingSink();
    expect(await reader('707', sink).catchUp()).toEqual({ entries: 0, events: 0, uninstalled: false });
    const odd = logLines.filter((line) => line.includes('HubSpot journal answer of an unknown shape'));
    expect(odd).toHaveLength(1);
    expect(JSON.parse(odd[0]!)).toMatchObject({ requestId: expect.stringMatching(/^[0-9a-f-]{36}$/), missing: ['url', 'currentOffset'], members: ['results', 'status'] });
    // Read again later: everything arrives, once.
    expect(await reader('707', sink).catchUp()).toEqual({ entries: 2, events: 4, uninstalled: false });
    expect([...sink.queued.keys()].sort()).toEqual(emails.sort());

    // A file with events this reader cannot read beside good ones: the good ones go through, the rest is named in the log.
    fake.journal.publish('707', [fake.journal.contactCreated('707', '99001', 'good@example.com'), { subscriptionType: 'OBJECT', objectTypeId: '0-1', objectId: 99002 }, { action: 42 }]);
    expect(await reader('707', sink).catchUp()).toEqual({ entries: 1, events: 1, uninstalled: false });
    const skipped = logLines.filter((line) => line.includes('events of an unknown shape skipped')).map((line) => JSON.parse(line) as { requestId: string; unread: string[] });
    expect(skipped.at(-1)).toMatchObject({ requestId: expect.any(String), unread: ['journalEvents[1]: no action', expect.stringMatching(/^journalEvents\[2\]: action: /)] });
  });
});
