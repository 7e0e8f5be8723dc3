import { randomUUID } from 'node:crypto';
import { createLogger } from '@verify-hub/core';
import { hubspotPlatform, journalTask } from '@verify-hub/connector-hubspot';
import { pipelineHost } from '../../cli/src/pipeline-host';
import { platformContext, loadHubConfig } from '../../cli/src/platforms';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { privateConnection } from '../hubspot/helpers';
import { startServeStack, until, type ServeStack } from './serve-stack';

/**
 * A hub with no public URL: the portal's connection is set to `events: journal`, and the journal
 * readers (started by serve and worker) feed what HubSpot records there into the same event path as
 * the webhook receivers, so serve's workers verify and write each new contact back once.
 */
const PORTAL = '818';
const TOKEN = `token-${randomUUID()}`;
const hubspot = new FakeHubSpot();

describe('HubSpot events from the webhooks journal through verify-hub serve', () => {
  let stack: ServeStack;
  beforeAll(async () => {
    await hubspot.start();
    hubspot.addPortal({ portalId: PORTAL, token: TOKEN });
    stack = await startServeStack('journal', `admin-${randomUUID()}`, {
      HUBSPOT_CLIENT_ID: hubspot.oauth.clientId, HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret, HUBSPOT_API_BASE: hubspot.url,
    });
  });
  afterAll(async () => {
    await stack.close();
    await hubspot.stop();
  });

  it('verifies and writes back each contact the journal reports, once; stops reading a disconnected connection', async () => {
    await stack.hub.pipeline.connections!.save(privateConnection(hubspot, PORTAL, TOKEN, { events: 'journal' }));
    await stack.hub.pipeline.ensureSchema(`hubspot-${PORTAL}`); // `verify-hub hubspot setup`
    const emails = Array.from({ length: 6 }, (_, i) => `journal-${i}-${randomUUID().slice(0, 6)}@example.com`);
    const ids = hubspot.addContacts(PORTAL, emails.map((email) => ({ email })));
    hubspot.journal.publish(PORTAL, ids.slice(0, 3).map((id, i) => hubspot.journal.contactCreated(PORTAL, id, emails[i]!)));
    hubspot.journal.publish(PORTAL, ids.slice(3).map((id, i) => hubspot.journal.contactCreated(PORTAL, id, emails[3 + i]!)));

    const config = loadHubConfig({ HUBSPOT_CLIENT_ID: hubspot.oauth.clientId, HUBSPOT_CLIENT_SECRET: hubspot.oauth.clientSecret, HUBSPOT_API_BASE: hubspot.url, LOG_LEVEL: 'silent' });
    // The HubSpot module's task as serve and worker start it, polling faster.
    const logger = createLogger({ level: 'silent' });
    const pipeline = stack.hub.pipeline;
    const readers = journalTask(platformContext(hubspotPlatform, { config, pipeline, logger }), pipelineHost(pipeline, undefined, logger, { journalIdleMs: 200 }), { rescanMs: 200 });
    readers.start();
    try {
      await until(async () => readers.reading(), (reading) => reading.includes(`hubspot-${PORTAL}`));
      await until(async () => ids.map((id) => hubspot.writeCounts.get(id) ?? 0), (counts) => counts.every((n) => n >= 1), 40_000);
      // More journal traffic while reading: picked up by the next poll.
      const [late] = hubspot.addContacts(PORTAL, [{ email: `late-${randomUUID().slice(0, 6)}@example.com` }]);
      hubspot.journal.publish(PORTAL, [hubspot.journal.contactCreated(PORTAL, late!, 'late@example.com')]);
      await until(async () => hubspot.writeCounts.get(late!) ?? 0, (n) => n >= 1, 40_000);
      expect([...ids, late!].map((id) => hubspot.writeCounts.get(id))).toEqual([1, 1, 1, 1, 1, 1, 1]);
      expect([...hubspot.journal.fetches.values()]).toEqual([1, 1, 1]);

      await stack.hub.pipeline.connections!.delete(`hubspot-${PORTAL}`);
      await until(async () => readers.reading(), (reading) => reading.length === 0);
    } finally {
      await readers.stop();
    }
  }, 120_000);
});
