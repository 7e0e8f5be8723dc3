import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { mailchimpConnectorFactory } from '@verify-hub/connector-mailchimp';
import { disconnectSummary, type SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeMailchimp } from '../fakes/mailchimp';
import { platformPipeline } from './helpers';

/** Disconnecting removes what the hub made on the platform, through the connector (real connectors against their fakes). */
const MAILCHIMP_KEY = `${'6'.repeat(32)}-us2`;

describe('disconnecting a connection cleans up the platform side', () => {
  let hubspot: FakeHubSpot;
  let mailchimp: FakeMailchimp;
  let pipeline: SyncPipeline;

  beforeAll(async () => {
    hubspot = new FakeHubSpot();
    hubspot.addPortal({ portalId: '902', token: 'token-902' });
    await hubspot.start();
    mailchimp = await new FakeMailchimp().start();
    mailchimp.addAccount(MAILCHIMP_KEY, { dc: 'us2' });
    mailchimp.addList(MAILCHIMP_KEY, 'news2', 'Newsletter');
    pipeline = platformPipeline('vhdisconnect', { hubspot: hubspotConnectorFactory, mailchimp: mailchimpConnectorFactory });
    const createdAt = new Date().toISOString();
    await pipeline.connections!.save({ id: 'hubspot-902', platform: 'hubspot', label: 'Portal', createdAt, credentials: { accessToken: 'token-902' }, settings: { apiBase: hubspot.url } });
    await pipeline.connections!.save({ id: 'mailchimp-news2', platform: 'mailchimp', label: 'Newsletter', createdAt, credentials: { apiKey: MAILCHIMP_KEY }, settings: { listId: 'news2', apiBase: mailchimp.apiBase, retry: { baseMs: 5, maxMs: 50 } } });
  });

  afterAll(async () => {
    await pipeline.purge();
    await pipeline.close();
    await hubspot.stop();
    await mailchimp.close();
  });

  it("deletes the audience's webhooks that post to this connection's hub address, and only those", async () => {
    mailchimp.addWebhook('news2', 'https://hub.example.com/webhooks/mailchimp/mailchimp-news2/secret-one');
    mailchimp.addWebhook('news2', 'https://old-host.example.com/webhooks/mailchimp/mailchimp-news2/secret-two');
    mailchimp.addWebhook('news2', 'https://hub.example.com/webhooks/mailchimp/mailchimp-other/secret-three');
    mailchimp.addWebhook('news2', 'https://crm.example.com/hooks/mailchimp');
    const report = await pipeline.disconnectPlatform('mailchimp-news2');
    expect(report).toEqual({ deleted: ['2 Mailchimp webhooks'] });
    expect(mailchimp.webhooksOf('news2')).toEqual(['https://hub.example.com/webhooks/mailchimp/mailchimp-other/secret-three', 'https://crm.example.com/hooks/mailchimp']);
    // Again: nothing left of ours.
    expect(await pipeline.disconnectPlatform('mailchimp-news2')).toEqual({ deleted: [] });
    expect(disconnectSummary({ schedules: 2, platform: report, cancelledRuns: 1 })).toBe('Deleted: the stored token, 2 schedules, 2 Mailchimp webhooks; cancelled 1 run.');
  });

  it("says HubSpot's webhook subscriptions are the app's, and deletes nothing there", async () => {
    const report = await pipeline.disconnectPlatform('hubspot-902');
    expect(report.deleted).toEqual([]);
    expect(disconnectSummary({ schedules: 0, platform: report, cancelledRuns: 0 })).toBe(
      "Deleted: the stored token. HubSpot's webhook subscriptions belong to the app, not to this connection: none deleted.",
    );
  });

  it('names an unknown connection', async () => {
    await expect(pipeline.disconnectPlatform('nope')).rejects.toThrow(/connectionId: no stored connection "nope"/);
  });
});
