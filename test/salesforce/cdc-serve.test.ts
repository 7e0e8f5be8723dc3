import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '@verify-hub/core';
import { changeEventsTask, salesforcePlatform } from '@verify-hub/connector-salesforce';
import { pipelineHost } from '../../cli/src/pipeline-host';
import { loadHubConfig, platformContext } from '../../cli/src/platforms';
import { startServeStack, until, type ServeStack } from '../webhooks-in/serve-stack';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import type { FakeStreaming } from '../fakes/salesforce/fake-streaming';
import { withStreaming } from '../fakes/salesforce/fake-streaming-org';
import { connectionRecord, fakeVariables, openConnector } from './helpers';

const TOKEN = 'salesforce-cdc-admin-token-0123456789';

/**
 * Change Data Capture through `verify-hub serve`'s pipeline and workers: the Salesforce module's task
 * (as serve and worker start it, rescanning faster) subscribes to the fake org's CometD channels, and a
 * new contact or a changed address is verified and written back; the hub's own write-backs come back as
 * change events and start nothing; a restarted task resumes from its replay ids; an org without Change
 * Data Capture is pulled by `changed-since` runs instead, and the log says so.
 */
describe('Salesforce Change Data Capture through verify-hub serve', () => {
  let org: FakeSalesforce;
  let streaming: FakeStreaming;
  let stack: ServeStack;
  let connectionId: string;
  /** A lead the first sync covered: it exists before the connection is made, so only its address change is work. */
  let lead: ReturnType<FakeSalesforce['add']>;
  const logLines: string[] = [];
  const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _encoding, done) => (logLines.push(String(chunk)), done()) }) });

  beforeAll(async () => {
    org = await new FakeSalesforce().start();
    streaming = withStreaming(org, { holdMs: 2_000 });
    lead = org.add('Lead', 'old.lead@example.com');
    stack = await startServeStack('sf-cdc', TOKEN, { ...fakeVariables(org), VERIFY_HUB_EVENT_COALESCE_MS: '100' });
    const record = connectionRecord(org);
    connectionId = record.id;
    await stack.hub.pipeline.connections!.save(record);
    // `verify-hub salesforce setup`: the fields, then Contact and Lead selected for Change Data Capture.
    await stack.hub.pipeline.ensureSchema(connectionId);
    expect((await openConnector(org).connector.ensureRealTime()).created).toEqual(['ContactChangeEvent', 'LeadChangeEvent']);
  });
  afterAll(async () => {
    await stack?.close();
    await streaming?.close();
    await org?.stop();
  });

  /** The module's task as serve and worker start it, rescanning and polling faster. */
  function task(options: { pollMs?: number } = {}) {
    const config = loadHubConfig({ ...fakeVariables(org), LOG_LEVEL: 'silent' });
    const pipeline = stack.hub.pipeline;
    return changeEventsTask(platformContext(salesforcePlatform, { config, pipeline, logger }), pipelineHost(pipeline, undefined, logger, { journalIdleMs: 200 }), { rescanMs: 200, heartbeatMs: 1_000, ...options });
  }
  const written = (id: string) => org.writesPerRecord.get(id) ?? 0;

  it('verifies a new contact and a changed lead address within 2 s of the change; the write-backs it makes start nothing', async () => {
    const readers = task();
    readers.start();
    try {
      await until(async () => streaming.subscribers('Contact') + streaming.subscribers('Lead'), (n) => n === 2, 20_000);
      const started = Date.now();
      const contact = org.add('Contact', 'new.contact@example.com');
      org.change(lead.Id, { Email: 'new.lead@example.com' });
      await until(async () => [written(contact.Id), written(lead.Id)], (counts) => counts.every((n) => n >= 1), 10_000);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(2_000);
      process.stdout.write(`salesforce CDC: change to write-back in ${elapsed} ms\n`);
      expect(org.records.get(contact.Id)).toMatchObject({ EV_Risk__c: 'safe' });
      // The two write-backs came back as change events (Salesforce sends the subscriber's own changes)
      // and were read and left alone; an address change after them is the next thing written.
      const later = org.add('Contact', 'later.contact@example.com');
      await until(async () => [written(later.Id), readers.ignored(connectionId).own_write ?? 0], ([w, echoes]) => w >= 1 && echoes >= 3, 10_000);
      expect([written(contact.Id), written(lead.Id), written(later.Id)]).toEqual([1, 1, 1]);
      expect(org.consentChanges).toEqual([]);
    } finally {
      await readers.stop();
    }
  }, 60_000);

  it('a restarted task resumes from the saved replay ids: the changes made while it was stopped, each written once', async () => {
    const missed = [org.add('Contact', 'while.down.1@example.com'), org.add('Lead', 'while.down.2@example.com')];
    const subscribes = streaming.messages.length;
    const readers = task();
    readers.start();
    try {
      await until(async () => missed.map((r) => written(r.Id)), (counts) => counts.every((n) => n >= 1), 20_000);
      const replays = streaming.messages.slice(subscribes).filter((m) => m.channel === '/meta/subscribe').map((m) => m.replay);
      expect(replays.every((r) => typeof r === 'number' && r > 0)).toBe(true);
      const marker = org.add('Contact', 'marker@example.com');
      await until(async () => written(marker.Id), (n) => n >= 1, 10_000);
      expect(missed.map((r) => written(r.Id))).toEqual([1, 1]);
    } finally {
      await readers.stop();
    }
  }, 60_000);

  it('an org without Change Data Capture (Professional) is pulled by changed-since runs instead, and the log says so', async () => {
    streaming.changeDataCapture = false;
    const readers = task({ pollMs: 1_500 });
    readers.start();
    try {
      await until(async () => logLines.join(''), (text) => text.includes('Change Data Capture is not available in this org'), 20_000);
      const changed = org.add('Contact', 'polled.contact@example.com');
      await until(async () => written(changed.Id), (n) => n >= 1, 30_000);
      const runs = (await request(stack.hub.url).get('/api/runs').set({ Authorization: `Bearer ${TOKEN}` })).body.runs as { scope: string }[];
      expect(runs.some((r) => r.scope.startsWith('changed-since:'))).toBe(true);
    } finally {
      await readers.stop();
      streaming.changeDataCapture = true;
    }
  }, 60_000);
});
