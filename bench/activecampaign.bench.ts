/**
 * ActiveCampaign connector: API calls per 1,000 contacts (first sync, unchanged re-sync, a sync where
 * a tenth of the risks changed) next to ActiveCampaign's limit of 5 requests a second per account, and
 * contacts per second at that real limit (enforced by the fake and by the connector's limiter) as a
 * ratio to it and to a naive one-call-per-contact baseline (5 contacts a second at best). Verification
 * results are synthetic: this measures the ActiveCampaign side only. Loopback only.
 */
import { ActivecampaignConnector, activecampaignEnvironment } from '@verify-hub/connector-activecampaign';
import { VerificationSchema, createLocalLimiter, parseScope, type ConnectionRecord, type ConnectorDeps, type Contact, type Verification } from '@verify-hub/core';
import { FakeActivecampaign } from '../test/fakes/activecampaign';

const deps = (): ConnectorDeps => {
  const limiters = new Map<string, ReturnType<typeof createLocalLimiter>>();
  return { limiter: (spec) => limiters.get(spec.key) ?? limiters.set(spec.key, createLocalLimiter(spec)).get(spec.key)!, saveCredentials: async () => undefined };
};

function connector(fake: FakeActivecampaign, env: Record<string, string>): ActivecampaignConnector {
  const record: ConnectionRecord = {
    id: 'activecampaign-demo', platform: 'activecampaign', label: 'bench', createdAt: new Date().toISOString(),
    credentials: { apiToken: fake.token }, settings: { apiUrl: fake.accountUrl },
  };
  return new ActivecampaignConnector(record, deps(), { apiUrl: fake.accountUrl }, activecampaignEnvironment.read({ ACTIVECAMPAIGN_API_BASE: fake.url, ...env } as never));
}

const RISKS = ['safe', 'risky', 'invalid'] as const;
const verdict = (email: string, i: number, shift = 0): Verification => {
  const risk = RISKS[(i + shift) % 3]!;
  return VerificationSchema.parse({
    email, normalized: email, score: risk === 'safe' ? 92 : risk === 'risky' ? 55 : 5, risk, reason: risk === 'safe' ? 'deliverable' : risk === 'risky' ? 'catch_all' : 'mailbox_not_found',
    checks: { syntax: true, mx: true, smtp: risk !== 'invalid', smtpCheck: risk === 'invalid' ? 'undeliverable' : 'deliverable', disposable: false, roleAccount: i % 13 === 0, catchAll: risk === 'risky', freeProvider: i % 2 === 0, spamTrapRisk: 'low' },
    checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
  });
};

/** Pulls every page and writes each in the host's batches of 250 while the next page is read, as the pipeline's chunk jobs do. */
async function sync(ac: ActivecampaignConnector, verdictOf: (c: Contact, i: number) => Verification): Promise<{ written: number; unchanged: number }> {
  let cursor: string | undefined;
  let i = 0;
  const writes: Promise<{ written: number; unchanged: string[] }>[] = [];
  do {
    const page = await ac.pull(parseScope('all'), cursor);
    for (let b = 0; b < page.contacts.length; b += 250) {
      writes.push(ac.write(page.contacts.slice(b, b + 250).map((contact) => ({ contact, verification: verdictOf(contact, i++) })), {}));
    }
    cursor = page.next;
  } while (cursor);
  const reports = await Promise.all(writes);
  return { written: reports.reduce((n, r) => n + r.written, 0), unchanged: reports.reduce((n, r) => n + r.unchanged.length, 0) };
}

function breakdown(fake: FakeActivecampaign, n: number): string {
  const per1000 = (x: number) => ((x * 1000) / n).toFixed(1);
  const kinds = [
    ['contact reads', fake.count('GET', '/contacts')],
    ['imports', fake.count('POST', '/import/bulk_import')],
    ['import status reads', fake.count('GET', '/import/info')],
    ['tag removals', fake.count('DELETE', '/contactTags/:id')],
    ['field/tag look-ups', fake.count('GET', '/fields') + fake.count('GET', '/tags')],
  ] as const;
  return `${per1000(fake.calls.length)} calls per 1,000 contacts (${kinds.map(([name, k]) => `${per1000(k)} ${name}`).join(', ')})`;
}

async function callsPerThousand(): Promise<void> {
  const n = 5_000;
  const fake = await new FakeActivecampaign({ requestsPerSecond: 10_000, importsPerMinute: 100_000 }).start();
  try {
    for (let i = 0; i < n; i++) fake.store.addContact(`c${i}@example.com`);
    // The real first wait before an import's status is read (1 s): it sets how many status reads an import takes.
    const ac = connector(fake, { ACTIVECAMPAIGN_REQUESTS_PER_SECOND: '1000', ACTIVECAMPAIGN_IMPORTS_PER_MINUTE: '10000' });
    await ac.ensureSchema();
    fake.calls.length = 0;
    const first = await sync(ac, (c, i) => verdict(c.email, i));
    const firstPer1000 = (fake.calls.length * 1000) / n;
    console.log(`first sync of ${n}: ${breakdown(fake, n)}; written ${first.written}`);
    fake.calls.length = 0;
    const again = await sync(ac, (c, i) => verdict(c.email, i));
    console.log(`unchanged re-sync: ${breakdown(fake, n)}; written ${again.written} (goal 0), unchanged ${again.unchanged}`);
    fake.calls.length = 0;
    const changed = await sync(ac, (c, i) => verdict(c.email, i, i % 10 === 0 ? 1 : 0));
    console.log(`a tenth of the risks changed: ${breakdown(fake, n)}; written ${changed.written}`);
    console.log(
      `next to the limit of 5 requests a second per account: a first sync spends ${(firstPer1000 / 5).toFixed(1)} s of the account's budget per 1,000 contacts (at most ${(5000 / firstPer1000).toFixed(0)} contacts/s); one call per contact would spend 200 s`,
    );
  } finally {
    await fake.stop();
  }
}

async function throughput(): Promise<void> {
  // ActiveCampaign's real limits, in the fake and the connector: 5 requests a second, 100 imports a minute, a 1 s first status wait.
  const n = 2_500;
  const fake = await new FakeActivecampaign({ requestsPerSecond: 5 }).start();
  try {
    for (let i = 0; i < n; i++) fake.store.addContact(`t${i}@example.com`);
    const ac = connector(fake, {});
    await ac.ensureSchema();
    fake.calls.length = 0;
    const started = Date.now();
    const report = await sync(ac, (c, i) => verdict(c.email, i));
    const seconds = (Date.now() - started) / 1000;
    const rate = report.written / seconds;
    const callRate = fake.calls.length / seconds;
    console.log(`first sync at 5 requests/s: ${report.written} contacts pulled and written in ${seconds.toFixed(1)} s = ${rate.toFixed(0)} contacts/s (${fake.calls.length} calls = ${callRate.toFixed(2)} requests/s, ${((callRate / 5) * 100).toFixed(0)} % of the limit; ${fake.rateLimited} answered 429)`);
    console.log(`ratio: ${(rate / 5).toFixed(0)}x the naive baseline of one call per contact (5 contacts/s at the limit, reads not even counted)`);
  } finally {
    await fake.stop();
  }
}

async function main(): Promise<void> {
  await callsPerThousand();
  await throughput();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
