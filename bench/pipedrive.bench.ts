/**
 * Pipedrive connector: API calls per 1,000 persons (first sync, unchanged re-sync, changed-since) next
 * to Pipedrive's published limits, and persons written per second at a real plan's 2-second burst
 * allowance (enforced by the fake, paced by the connector's limiter) as a ratio to that allowance.
 * Pipedrive has no bulk update: a first sync is one PATCH per changed person, so the write side is
 * bounded by the burst window and the daily token budget, not by batching. Verdicts are synthetic:
 * this measures the Pipedrive side only. Loopback only.
 */
import { RateLimitError, VerificationSchema, parseScope, type Contact, type Verification } from '@verify-hub/core';
import type { PipedriveConnector } from '@verify-hub/connector-pipedrive';
import { FakePipedrive } from '../test/fakes/pipedrive/fake-pipedrive';
import { connectorFor, tokenRecord } from '../test/pipedrive/helpers';

// Published figures (Pipedrive "Rate limiting"): burst per 2 s by plan; token costs as listed for the
// token-based budget (list GET 20, single-entity update 10) and the base budget of 30,000 tokens a
// seat a day, times the plan's multiplier (1 to 7).
const BURST = { 'api_token Essential': 20, 'OAuth Enterprise': 480 };
const TOKENS = { listGet: 20, update: 10, baseDaily: 30_000 };

const verdict = (email: string, i: number): Verification =>
  VerificationSchema.parse({
    email, normalized: email, score: 90 - (i % 7), risk: i % 10 === 0 ? 'risky' : 'safe', reason: i % 10 === 0 ? 'catch_all' : 'deliverable',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: i % 10 === 0, freeProvider: false, spamTrapRisk: 'none' },
    checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
  });

async function pullAll(connector: PipedriveConnector, scope: string): Promise<Contact[]> {
  const contacts: Contact[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.pull(parseScope(scope), cursor);
    contacts.push(...page.contacts);
    cursor = page.next;
  } while (cursor);
  return contacts;
}

async function writeAll(connector: PipedriveConnector, contacts: Contact[]) {
  let written = 0;
  // As the host does: batches of writeBatchSize (50), one write call each, a batch refused by the
  // rate window tried once more after its reset (the persons it already wrote are not sent again).
  for (let at = 0; at < contacts.length; at += 50) {
    const batch = contacts.slice(at, at + 50).map((c, i) => ({ contact: c, verification: verdict(c.email, at + i) }));
    const report = await connector.write(batch, {}).catch(async (error: unknown) => {
      if (!(error instanceof RateLimitError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, error.waitMs(Date.now())));
      return connector.write(batch, {});
    });
    written += report.written;
  }
  return written;
}

async function callsPerThousand(): Promise<void> {
  const n = 5_000;
  const fake = await new FakePipedrive({ burstLimit: 100_000, deliverOwnChanges: false }).start();
  try {
    fake.seed(n, (i) => [`p${i}@example.com`]);
    const { connector } = connectorFor(fake, tokenRecord(fake, { burstLimit: 100_000 }));
    await connector.ensureSchema();
    const per1000 = (x: number) => (x * 1000) / n;
    const reset = () => (fake.calls.length = 0);
    const reads = () => fake.callsTo('GET', '/api/v2/');
    const patches = () => fake.callsTo('PATCH', '/api/v2/persons/');

    reset();
    const written = await writeAll(connector, await pullAll(connector, 'all'));
    const tokens = per1000(fake.pageReads()) * TOKENS.listGet + per1000(patches()) * TOKENS.update;
    console.log(`first sync of ${n}: ${per1000(reads()).toFixed(1)} reads (${per1000(fake.pageReads()).toFixed(1)} pages of 500) + ${per1000(patches()).toFixed(0)} PATCHes per 1,000 persons; written ${written}`);
    console.log(`  = about ${tokens.toFixed(0)} tokens per 1,000 persons = ${((100 * tokens) / TOKENS.baseDaily).toFixed(0)} % of one seat's base daily budget (${TOKENS.baseDaily.toLocaleString('en')} tokens x plan multiplier 1-7)`);
    console.log(`  a day's base budget of one seat covers ~${Math.floor((TOKENS.baseDaily / tokens) * 1000).toLocaleString('en')} first-sync persons (1 PATCH per changed person: Pipedrive has no bulk update)`);

    reset();
    await writeAll(connector, await pullAll(connector, 'all'));
    console.log(`unchanged re-sync: ${per1000(reads()).toFixed(1)} reads + ${per1000(patches()).toFixed(0)} writes per 1,000 persons (goal 0 writes)`);

    reset();
    const since = await pullAll(connector, `changed-since:${new Date(Date.now() + 60_000).toISOString()}`);
    console.log(`changed-since with nothing changed: ${reads()} read(s) in all, ${since.length} persons`);
    console.log(`marketing_status writes: ${fake.marketingStatusWrites.length} (must be 0)`);
  } finally {
    await fake.stop();
  }
}

async function throughput(plan: keyof typeof BURST, persons: number): Promise<void> {
  const limit = BURST[plan];
  const fake = await new FakePipedrive({ burstLimit: limit, deliverOwnChanges: false }).start();
  try {
    fake.seed(persons, (i) => [`t${i}@example.com`]);
    // Setup and the pull go first; the writes are timed in fresh windows.
    const { connector } = connectorFor(fake, tokenRecord(fake, { burstLimit: limit }));
    await connector.ensureSchema();
    const contacts = await pullAll(connector, 'all');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const started = Date.now();
    const written = await writeAll(connector, contacts);
    const seconds = (Date.now() - started) / 1000;
    const rate = written / seconds;
    const allowed = limit / 2;
    console.log(`${plan} (${limit} per 2 s = ${allowed}/s): ${written} persons written in ${seconds.toFixed(1)} s = ${rate.toFixed(1)} persons/s = ${((100 * rate) / allowed).toFixed(0)} % of the limit (the connector keeps 10 % for others on the token); 429s: ${fake.limits.refused.burst}, PATCHes sent twice: ${[...fake.writesPerPerson.values()].filter((x) => x > 1).length}`);
  } finally {
    await fake.stop();
  }
}

async function main(): Promise<void> {
  await callsPerThousand();
  await throughput('api_token Essential', 200);
  await throughput('OAuth Enterprise', 2_000);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
