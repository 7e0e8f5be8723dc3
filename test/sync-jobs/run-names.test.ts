import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubspotConnectorFactory } from '@verify-hub/connector-hubspot';
import { mailchimpConnectorFactory } from '@verify-hub/connector-mailchimp';
import { fileConnectorFactory } from '@verify-hub/connector-file';
import { runName } from '@verify-hub/core';
import type { SyncPipeline } from '@verify-hub/sync-jobs';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { FakeMailchimp } from '../fakes/mailchimp';
import { platformPipeline } from './helpers';

/**
 * Runs are named for people when they start: a platform run by what the connector calls its scope
 * (the real connectors against their fakes), a file run by the name it was given; the history is
 * filtered by source and status and searched by name. No workers: only the run records are looked at.
 */
const MAILCHIMP_KEY = `${'5'.repeat(32)}-us2`;

describe('run names and the run history', () => {
  let hubspot: FakeHubSpot;
  let mailchimp: FakeMailchimp;
  let pipeline: SyncPipeline;
  let dir: string;

  beforeAll(async () => {
    hubspot = new FakeHubSpot();
    hubspot.addPortal({ portalId: '901', token: 'token-901' });
    const ids = hubspot.addContacts('901', [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
    hubspot.setList('901', '77', ids, 'Trade show leads');
    await hubspot.start();
    mailchimp = await new FakeMailchimp().start();
    mailchimp.addAccount(MAILCHIMP_KEY, { dc: 'us2' });
    mailchimp.addList(MAILCHIMP_KEY, 'news1', 'Monthly newsletter');
    pipeline = platformPipeline('vhnames', { hubspot: hubspotConnectorFactory, mailchimp: mailchimpConnectorFactory, file: fileConnectorFactory });
    const createdAt = new Date().toISOString();
    await pipeline.connections!.save({ id: 'hubspot-901', platform: 'hubspot', label: 'Acme portal', createdAt, credentials: { accessToken: 'token-901' }, settings: { apiBase: hubspot.url } });
    await pipeline.connections!.save({ id: 'mailchimp-news1', platform: 'mailchimp', label: 'Acme Mailchimp', createdAt, credentials: { apiKey: MAILCHIMP_KEY }, settings: { listId: 'news1', apiBase: mailchimp.apiBase, retry: { baseMs: 5, maxMs: 50 } } });
    dir = await mkdtemp(join(tmpdir(), 'vh-names-'));
    await writeFile(join(dir, 'spring.csv'), 'email\na@example.com\n');
  });

  afterAll(async () => {
    await pipeline.purge();
    await pipeline.close();
    await hubspot.stop();
    await mailchimp.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('names a platform run by its list or audience and keeps the connection label', async () => {
    const list = await pipeline.start({ platform: 'hubspot', connectionId: 'hubspot-901', scope: 'list:77' });
    expect(list).toMatchObject({ name: 'Trade show leads', connectionLabel: 'Acme portal' });
    const audience = await pipeline.start({ platform: 'mailchimp', connectionId: 'mailchimp-news1', scope: 'all' });
    expect(audience).toMatchObject({ name: 'Monthly newsletter', connectionLabel: 'Acme Mailchimp' });
    const changed = await pipeline.start({ platform: 'mailchimp', connectionId: 'mailchimp-news1', scope: 'changed-since:2026-03-01T08:30:00Z' });
    expect(changed.name).toBe('Monthly newsletter (changed since 2026-03-01 08:30 UTC)');
    // What the connector does not name reads as the scope in words.
    const all = await pipeline.start({ platform: 'hubspot', connectionId: 'hubspot-901', scope: 'all' });
    expect(all.name).toBeUndefined();
    expect(runName(all)).toBe('All contacts');
    const since = await pipeline.start({ platform: 'hubspot', connectionId: 'hubspot-901', scope: 'changed-since:2026-01-31T00:00:00Z' });
    expect(runName(since)).toBe('Changed since 2026-01-31 00:00 UTC');
    // An audience the platform does not know cannot be named: the run is still started, named by its scope.
    const unknown = await pipeline.start({ platform: 'mailchimp', connectionId: 'mailchimp-news1', scope: 'audience:gone42' });
    expect(runName(unknown)).toBe('Audience gone42');
    // A re-check is named after the run it re-checks.
    expect((await pipeline.recheckUnknowns(list.id)).name).toBe('Re-check of Trade show leads');
  });

  it('names a file run by the name given at start; filters by source and status, searches by name or connection', async () => {
    const file = await pipeline.start({ platform: 'file', scope: `file:${join(dir, 'spring.csv')}`, name: 'Spring Leads.csv' });
    expect(file.name).toBe('Spring Leads.csv');
    expect(file.connectionLabel).toBeUndefined();
    await pipeline.cancel(file.id);
    // A name is one line, at most 200 characters (it is shown in tables and on the terminal).
    const odd = await pipeline.start({ platform: 'file', scope: `file:${join(dir, 'spring.csv')}`, name: `  Two\nlines\u0007${'x'.repeat(300)}` });
    expect(odd.name).toBe(`Two lines ${'x'.repeat(190)}`);
    await pipeline.cancel(odd.id);

    const names = async (filter: Parameters<SyncPipeline['list']>[0]) => (await pipeline.list(filter)).map(runName);
    expect(await names({ source: 'file' })).toEqual([odd.name, 'Spring Leads.csv']);
    expect(await names({ source: 'platform' })).not.toContain('Spring Leads.csv');
    expect(await names({ source: 'platform' })).toContain('Trade show leads');
    expect(await names({ status: 'cancelled' })).toEqual([odd.name, 'Spring Leads.csv']);
    expect(await names({ status: 'cancelled', source: 'platform' })).toEqual([]);
    expect(await names({ search: 'NEWSLETTER' })).toEqual(['Monthly newsletter (changed since 2026-03-01 08:30 UTC)', 'Monthly newsletter']);
    // The words people see are searched, the fallback ones too, and the connection's label.
    expect(await names({ search: 'all contacts' })).toEqual(['All contacts']);
    expect((await pipeline.list({ search: 'acme portal' })).every((run) => run.connectionLabel === 'Acme portal')).toBe(true);
    expect(await names({ search: 'acme portal', limit: 2 })).toHaveLength(2);
    expect(await names({ search: 'no such run' })).toEqual([]);
  });
});
