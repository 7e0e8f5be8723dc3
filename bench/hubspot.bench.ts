/**
 * HubSpot connector: API calls per 1,000 contacts (first sync, unchanged re-sync, changed-since) and
 * contacts per second at HubSpot's real private-app limit (100 calls per rolling 10 s, enforced by the
 * fake and by the connector's limiter), against a naive one-call-per-contact baseline run in the same
 * process. Verification results are synthetic: this measures the HubSpot side only. Loopback only.
 */
import { createLocalLimiter, VerificationSchema, parseScope, type ConnectionRecord, type ConnectorDeps, type Contact, type Verification } from '@verify-hub/core';
import { HubSpotConnector } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../test/fakes/hubspot/fake-hubspot';

const deps = (): ConnectorDeps => {
  const limiters = new Map<string, ReturnType<typeof createLocalLimiter>>();
  return {
    limiter: (spec) => limiters.get(spec.key) ?? limiters.set(spec.key, createLocalLimiter(spec)).get(spec.key)!,
    saveCredentials: async () => undefined,
  };
};

const record = (fake: FakeHubSpot, portalId: string, token: string): ConnectionRecord => ({
  id: `hubspot-${portalId}`, platform: 'hubspot', label: portalId, createdAt: new Date().toISOString(),
  credentials: { accessToken: token }, settings: { apiBase: fake.url },
});

const verdict = (email: string, i: number): Verification => VerificationSchema.parse({
  email, normalized: email, score: 90 - (i % 7), risk: i % 10 === 0 ? 'risky' : 'safe', reason: i % 10 === 0 ? 'catch_all' : 'deliverable',
  checks: { syntax: true, mx: true, smtp: true, smtpCheck: i % 10 === 0 ? 'catch_all' : 'deliverable', disposable: false, roleAccount: i % 13 === 0, catchAll: i % 10 === 0, freeProvider: i % 2 === 0, spamTrapRisk: 'none' },
  checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
});

async function pullAll(hub: HubSpotConnector, scope: string): Promise<Contact[]> {
  const contacts: Contact[] = [];
  let cursor: string | undefined;
  do {
    const page = await hub.pull(parseScope(scope), cursor);
    contacts.push(...page.contacts);
    cursor = page.next;
  } while (cursor);
  return contacts;
}

const count = (fake: FakeHubSpot, test: (path: string, method: string) => boolean) => fake.calls.filter((c) => test(c.path, c.method)).length;
const reads = (fake: FakeHubSpot) => count(fake, (p, m) => m === 'GET' || p.endsWith('/search') || p.endsWith('/batch/read'));
const writes = (fake: FakeHubSpot) => count(fake, (p) => p.endsWith('/batch/update'));

async function callsPerThousand(fake: FakeHubSpot): Promise<void> {
  const n = 5_000;
  fake.addPortal({ portalId: '9001', token: 'bench-calls', windowLimit: 1_000_000, searchPerSecond: 1000 });
  fake.addContacts('9001', Array.from({ length: n }, (_, i) => ({ email: `c${i}@example.com`, modifiedAt: Date.parse('2026-01-01T00:00:00Z') + i * 1000 })));
  const hub = new HubSpotConnector(record(fake, '9001', 'bench-calls'), deps());
  await hub.ensureSchema();
  const per1000 = (x: number) => ((x * 1000) / n).toFixed(1);

  fake.resetCalls();
  const first = await pullAll(hub, 'all');
  const firstReport = await hub.write(first.map((c, i) => ({ contact: c, verification: verdict(c.email, i) })), {});
  const firstCalls = reads(fake) + writes(fake);
  console.log(`first sync of ${n}: ${per1000(reads(fake))} reads + ${per1000(writes(fake))} writes per 1,000 contacts (goal <= 10 + 10); written ${firstReport.written}`);

  fake.resetCalls();
  const again = await pullAll(hub, 'all');
  const againReport = await hub.write(again.map((c, i) => ({ contact: c, verification: verdict(c.email, i) })), {});
  console.log(`unchanged re-sync: ${per1000(reads(fake))} reads + ${per1000(writes(fake))} writes per 1,000 contacts (goal 0 writes); unchanged ${againReport.unchanged.length}`);

  fake.resetCalls();
  const since = await pullAll(hub, 'changed-since:2026-01-01T00:00:00Z');
  console.log(`changed-since (search, 200 a page): ${per1000(reads(fake))} reads per 1,000 contacts; ${since.length} contacts`);
  console.log(`naive baseline (one read + one write per contact): 2,000 calls per 1,000 contacts -> the batched first sync makes ${((2 * n) / firstCalls).toFixed(0)}x fewer calls`);
}

async function throughput(fake: FakeHubSpot): Promise<void> {
  // HubSpot's private-app limit, real size: 100 calls per rolling 10 s, both in the fake and the connector.
  const n = 10_000;
  fake.addPortal({ portalId: '9002', token: 'bench-rate', windowLimit: 100, windowMs: 10_000 });
  fake.addPortal({ portalId: '9003', token: 'bench-naive', windowLimit: 100, windowMs: 10_000 });
  fake.addContacts('9002', Array.from({ length: n }, (_, i) => ({ email: `t${i}@example.com` })));
  const naiveIds = fake.addContacts('9003', Array.from({ length: 2_000 }, (_, i) => ({ email: `n${i}@example.com` })));
  const schemaDeps = deps();
  await new HubSpotConnector(record(fake, '9002', 'bench-rate'), schemaDeps).ensureSchema();
  await new HubSpotConnector(record(fake, '9003', 'bench-naive'), schemaDeps).ensureSchema();
  // A fresh window for the measured runs.
  fake.portal('9002').windowStarts.length = 0;
  fake.portal('9003').windowStarts.length = 0;

  fake.resetCalls();
  const hub = new HubSpotConnector(record(fake, '9002', 'bench-rate'), deps());
  const started = Date.now();
  const contacts = await pullAll(hub, 'all');
  const report = await hub.write(contacts.map((c, i) => ({ contact: c, verification: verdict(c.email, i) })), {});
  const batchedSeconds = (Date.now() - started) / 1000;
  const batchedRate = report.written / batchedSeconds;
  const rateLimited = fake.calls.filter((c) => c.status === 429).length;
  console.log(`batched sync at 100 calls/10 s: ${report.written} contacts pulled and written in ${batchedSeconds.toFixed(1)} s = ${batchedRate.toFixed(0)} contacts/s (${fake.calls.length} calls, ${rateLimited} answered 429)`);

  // Naive: one update call per contact, through the same kind of limiter, for a bounded time.
  const naive = new HubSpotConnector(record(fake, '9003', 'bench-naive'), deps());
  const budgetMs = Math.max(12_000, batchedSeconds * 1000);
  const naiveStart = Date.now();
  let done = 0;
  for (const id of naiveIds) {
    if (Date.now() - naiveStart > budgetMs) break;
    const r = await naive.write([{ contact: { id, email: `n${done}@example.com` }, verification: verdict(`n${done}@example.com`, done) }], {});
    done += r.written;
  }
  const naiveSeconds = (Date.now() - naiveStart) / 1000;
  const naiveRate = done / naiveSeconds;
  console.log(`naive one call per contact: ${done} contacts written in ${naiveSeconds.toFixed(1)} s = ${naiveRate.toFixed(1)} contacts/s (writes only; reads not even counted)`);
  console.log(`ratio: batched is ${(batchedRate / naiveRate).toFixed(0)}x the naive baseline in contacts per second`);
}

async function main(): Promise<void> {
  const fake = new FakeHubSpot();
  await fake.start();
  try {
    await callsPerThousand(fake);
    await throughput(fake);
  } finally {
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
