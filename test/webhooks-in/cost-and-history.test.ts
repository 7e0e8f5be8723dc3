import request from 'supertest';
import { estimateText } from '@verify-hub/core';
import { createHarness, bearer, type Harness } from './harness';
import { FakeRunService } from './fake-run-service';
import { MemoryConnectionStore } from './file-cleaning';
import { FakeOperations } from './dashboard-fakes';

const PRICING = { pricePer1000: 1.2, currency: 'USD' };

/** Cost in money, the wrong-column guard and the run history, through the admin API the dashboard reads. */
describe('admin API: cost, the wrong-column guard and the run history', () => {
  let h: Harness;
  const connections = new MemoryConnectionStore();
  const runs = () => h.runs as FakeRunService;

  beforeAll(async () => {
    h = await createHarness({ runs: new FakeRunService(), connections, operations: new FakeOperations(connections), pricing: PRICING });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(() => runs().runs.clear());

  // 12 people: the Name column holds no address at all.
  const csv = ['Name,Email,Company', ...Array.from({ length: 12 }, (_, i) => `Person ${i},p${i}@example.com,Firm ${i}`)].join('\n');
  const preview = (name: string) => request(h.hub.app).post('/api/files/preview').set(bearer).attach('file', Buffer.from(csv), name);

  it('states the estimate as a ceiling in credits and money, with no warning for a column of addresses', async () => {
    const res = await preview('People.csv');
    expect(res.status).toBe(201);
    expect(res.body.estimate).toEqual({
      contacts: 12, unique: 12, cached: 0, estimatedCredits: 12,
      cost: { credits: 12, money: { amount: 0.0144, currency: 'USD', text: '$0.01' }, text: estimateText(12, PRICING) },
    });
    expect(res.body.estimate.cost.text).toBe('At most 12 credits (≈ $0.01): duplicates, addresses already checked recently and unknown results are free');
  });

  it('warns when under half of the chosen column looks like addresses, naming it, the share and the better column', async () => {
    const id = (await preview('People.csv')).body.upload.id as string;
    const wrong = await request(h.hub.app).get(`/api/files/${id}/estimate`).query({ column: 'Name' }).set(bearer);
    expect(wrong.status).toBe(200);
    expect(wrong.body.columnWarning).toEqual({
      column: 'Name', percent: 0, suggestedColumn: 'Email',
      message: 'only 0% of the values in column "Name" look like email addresses; is this the email column? Column "Email" looks like one.',
    });
    const right = await request(h.hub.app).get(`/api/files/${id}/estimate`).query({ column: 'Email' }).set(bearer);
    expect(right.body.columnWarning).toBeUndefined();
    // A preview uploaded with the wrong column says so at once.
    const named = await request(h.hub.app).post('/api/files/preview').set(bearer).field('column', 'Company').attach('file', Buffer.from(csv), 'x.csv');
    expect(named.body.estimate.columnWarning).toMatchObject({ column: 'Company', suggestedColumn: 'Email' });
  });

  it('names a file run by the file name as uploaded and shows what it spent in money', async () => {
    const id = (await preview('Spring Leads (final).csv')).body.upload.id as string;
    const started = await request(h.hub.app).post(`/api/files/${id}/start`).set(bearer).send({});
    expect(started.status).toBe(202);
    expect(started.body.run).toMatchObject({ name: 'Spring Leads (final).csv', spent: { credits: 0, money: { text: '$0.00' }, text: '0 credits (≈ $0.00)' } });
    runs().finish(started.body.run.id, 'completed', { credits: 119 });
    const run = await request(h.hub.app).get(`/api/runs/${started.body.run.id}`).set(bearer);
    expect(run.body).toMatchObject({ name: 'Spring Leads (final).csv', spent: { credits: 119, money: { amount: 0.1428, currency: 'USD', text: '$0.14' }, text: '119 credits (≈ $0.14)' } });
  });

  it('filters the run list by source and status and searches names, case-insensitively; runs without a name get one from their scope', async () => {
    const file = await runs().start({ platform: 'file', connectionId: 'file-1', scope: 'file:/srv/uploads/x/leads.csv', name: 'Leads March.csv' });
    const audience = await runs().start({ platform: 'mailchimp', connectionId: 'mc-1', scope: 'all', name: 'Monthly newsletter' });
    await runs().start({ platform: 'hubspot', connectionId: 'hs-1', scope: 'changed-since:2026-01-31T00:00:00Z' });
    runs().finish(file.id, 'completed');
    runs().finish(audience.id, 'failed', {}, 'Mailchimp refused the API key');
    const list = async (query: Record<string, string>) => {
      const res = await request(h.hub.app).get('/api/runs').query(query).set(bearer);
      expect(res.status).toBe(200);
      return (res.body.runs as { id: string; name: string }[]).map((r) => r.name).sort();
    };
    expect(await list({})).toEqual(['Changed since 2026-01-31 00:00 UTC', 'Leads March.csv', 'Monthly newsletter']);
    expect(await list({ source: 'file' })).toEqual(['Leads March.csv']);
    expect(await list({ source: 'platform' })).toEqual(['Changed since 2026-01-31 00:00 UTC', 'Monthly newsletter']);
    expect(await list({ status: 'failed' })).toEqual(['Monthly newsletter']);
    expect(await list({ status: 'completed', source: 'platform' })).toEqual([]);
    expect(await list({ q: 'NEWS' })).toEqual(['Monthly newsletter']);
    expect(await list({ q: 'changed since' })).toEqual(['Changed since 2026-01-31 00:00 UTC']);
    expect(await list({ q: '  ' })).toHaveLength(3);
  });

  it.each([
    [{ source: 'csv' }, 'query.source'],
    [{ status: 'done' }, 'query.status'],
    [{ q: 'x'.repeat(201) }, 'query.q'],
    [{ sort: 'name' }, 'query'],
  ])('refuses %j with a 400 naming the field', async (query, field) => {
    const res = await request(h.hub.app).get('/api/runs').query(query).set(bearer);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'INVALID_INPUT', field });
  });
});
