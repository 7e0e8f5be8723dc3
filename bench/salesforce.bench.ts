/**
 * Salesforce connector: API calls per 1,000 contacts (first sync, unchanged re-sync) on both paths
 * (REST query pages + sObject Collections below the thresholds; a Bulk API 2.0 query job + ingest jobs
 * above them), set next to an org's daily API allocation (Salesforce's limit is calls per rolling 24 h,
 * not per second), against a naive one-call-per-record baseline. Verdicts are synthetic: this measures
 * the Salesforce side only, against the fake org on loopback.
 */
import { createLocalLimiter, parseScope, type Contact, type Verification } from '@verify-hub/core';
import { SalesforceConnector, SalesforceSettings, salesforceConnectionId, salesforceEnvironment } from '@verify-hub/connector-salesforce';
import { FakeSalesforce } from '../test/fakes/salesforce/fake-salesforce';

/** Published daily allocations: Developer Edition 15,000; Enterprise 100,000 plus 1,000 per Salesforce licence (here 10 licences). */
const ALLOCATIONS = { 'Developer Edition': 15_000, 'Enterprise, 10 licences': 110_000 };

function connector(fake: FakeSalesforce, settings: Record<string, unknown> = {}) {
  const record = { id: salesforceConnectionId(fake.orgId), platform: 'salesforce', label: 'bench', createdAt: new Date().toISOString(), credentials: fake.issueTokens(), settings: fake.connectionSettings({ apiHeadroom: 0, ...settings }) };
  const environment = salesforceEnvironment.read({ SALESFORCE_CLIENT_ID: fake.clientId, SALESFORCE_CLIENT_SECRET: fake.clientSecret, SALESFORCE_LOGIN_URL: fake.url } as never);
  return new SalesforceConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined }, SalesforceSettings.parse(record.settings), environment);
}

const verdict = (email: string, i: number): Verification => ({
  email, normalized: email, score: 90 - (i % 7), risk: i % 10 === 0 ? 'risky' : 'safe', reason: i % 10 === 0 ? 'catch_all' : 'deliverable',
  checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: i % 13 === 0, catchAll: i % 10 === 0, freeProvider: i % 2 === 0, spamTrapRisk: 'none' },
  checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
});

/** A run as the pipeline does it: page after page, each page written in batches of the module's write size. */
async function sync(sf: SalesforceConnector): Promise<{ written: number; unchanged: number }> {
  let cursor: string | undefined;
  let written = 0;
  let unchanged = 0;
  let i = 0;
  do {
    const page = await sf.pull(parseScope('all'), cursor);
    const report = await sf.write(page.contacts.map((c: Contact) => ({ contact: c, verification: verdict(c.email, i++) })), {});
    written += report.written;
    unchanged += report.unchanged.length;
    cursor = page.next;
  } while (cursor);
  return { written, unchanged };
}

async function measure(label: string, records: number, settings: Record<string, unknown> = {}): Promise<number> {
  const fake = await new FakeSalesforce().start();
  fake.bulk.pollsBeforeComplete = 1;
  try {
    for (let i = 0; i < records; i++) fake.add(i % 2 ? 'Lead' : 'Contact', `p${i}@example${i % 40}.com`);
    const sf = connector(fake, settings);
    await sf.ensureSchema();
    const per1000 = (calls: number) => (calls * 1000) / records;
    let before = fake.apiCalls;
    const started = Date.now();
    const first = await sync(sf);
    const seconds = (Date.now() - started) / 1000;
    const firstCalls = fake.apiCalls - before;
    before = fake.apiCalls;
    const again = await sync(sf);
    const againCalls = fake.apiCalls - before;
    console.log(`${label}: first sync of ${records} records (${first.written} written) ${firstCalls} calls = ${per1000(firstCalls).toFixed(2)} per 1,000 contacts, ${(records / seconds).toFixed(0)} records/s on loopback; unchanged re-sync ${againCalls} calls = ${per1000(againCalls).toFixed(2)} per 1,000 (${again.written} writes, ${again.unchanged} unchanged)`);
    return per1000(firstCalls);
  } finally {
    await fake.stop();
  }
}

async function main(): Promise<void> {
  const rest = await measure('REST + Collections (below the thresholds)', 5_000, { bulkWriteThreshold: 1_000_000 });
  // 15,000 of each object above a 10,000 query threshold (the setting; 50,000 by default): 2,000 by REST, then a Bulk query job in pages of 5,000, each page one ingest job.
  const bulk = await measure('Bulk 2.0 query + ingest (thresholds 10,000 to query, 2,000 to write)', 30_000, { bulkQueryThreshold: 10_000 });
  // Naive: a SOQL page per 2,000 and one PATCH /sobjects/<type>/<id> per record.
  const naive = 1000 / 2000 + 1000;
  console.log(`naive baseline (one update call per record): ${naive.toFixed(1)} calls per 1,000 contacts -> Collections ${(naive / rest).toFixed(0)}x fewer, Bulk ${(naive / bulk).toFixed(0)}x fewer`);
  for (const [org, allocation] of Object.entries(ALLOCATIONS)) {
    console.log(`${org} (${allocation.toLocaleString('en')} calls a day): 1,000 contacts use ${((rest * 100) / allocation).toFixed(3)} % (Collections) / ${((bulk * 100) / allocation).toFixed(3)} % (Bulk) of it; the allocation covers ${Math.floor((allocation / rest) * 1000).toLocaleString('en')} / ${Math.floor((allocation / bulk) * 1000).toLocaleString('en')} contacts a day (naive: ${Math.floor((allocation / naive) * 1000).toLocaleString('en')})`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
