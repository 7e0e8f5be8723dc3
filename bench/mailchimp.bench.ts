/**
 * Mailchimp calls per 1,000 members, first sync and unchanged re-sync, against the fake Mailchimp
 * API (loopback only), through the real SDK. Baseline in the same run: a naive per-member sync
 * (pages of 100, one PATCH for the merge fields and one tags call per member, no change detection),
 * with the same 10-connection limiter. Goals: first sync <= 1 read + 2 writes per 1,000 members;
 * unchanged re-sync 0 writes; never more than 10 simultaneous connections per key.
 */
import { createLocalLimiter, parseScope, RISKS, type Risk, type Verification } from '@verify-hub/core';
import { MailchimpConnector, riskTagName, toMailchimpMergeFields, toMailchimpTagChanges } from '@verify-hub/connector-mailchimp';
import { FakeMailchimp } from '../test/fakes/mailchimp';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10_000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 2);
const KEY_OURS = `${'1'.repeat(32)}-us1`;
const KEY_NAIVE = `${'2'.repeat(32)}-us1`;

function verificationOf(email: string): Verification {
  const n = Number(/(\d+)@/.exec(email)?.[1] ?? 0);
  const risk: Risk = RISKS[n % 4]!;
  return {
    email,
    normalized: email,
    score: { safe: 95, risky: 55, invalid: 2, unknown: 0 }[risk],
    risk,
    reason: 'deliverable',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none' },
    checkedAt: '2026-11-20T10:00:00.000Z',
    billable: risk !== 'unknown',
  };
}

interface Figures {
  read: number;
  write: number;
  poll: number;
  archives: number;
  peak: number;
  ms: number;
}

function snapshot(fake: FakeMailchimp, key: string, started: number): Figures {
  return { ...fake.stats(key), archives: fake.archiveDownloads, peak: fake.peakConcurrent.get(key) ?? 0, ms: performance.now() - started };
}

async function oursSync(fake: FakeMailchimp, connector: MailchimpConnector): Promise<Figures> {
  fake.resetStats();
  const started = performance.now();
  const writes: Promise<unknown>[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.pull(parseScope('all'), cursor);
    // Each page is written by a chunk job while the next page is read, as the pipeline does.
    writes.push(connector.write(page.contacts.map((contact) => ({ contact, verification: verificationOf(contact.email) })), {}));
    cursor = page.next;
  } while (cursor);
  const reports = (await Promise.all(writes)) as { failed: unknown[] }[];
  const failed = reports.reduce((n, r) => n + r.failed.length, 0);
  if (failed) throw new Error(`${failed} members failed`);
  return snapshot(fake, KEY_OURS, started);
}

/** A per-member sync through the same SDK, pages of 100, two calls per member, no change detection. */
async function naiveSync(fake: FakeMailchimp, listId: string): Promise<Figures> {
  type Sdk = {
    basePath: string;
    setConfig(c: object): void;
    lists: {
      getListMembersInfo(id: string, o: object): Promise<{ members: { id: string; email_address: string }[]; total_items: number }>;
      updateListMember(id: string, hash: string, body: object, o: object): Promise<unknown>;
      updateListMemberTags(id: string, hash: string, body: object): Promise<unknown>;
    };
  };
  const ApiClient = require('@mailchimp/mailchimp_marketing/src/ApiClient') as new () => Sdk;
  const client = new ApiClient();
  client.setConfig({ apiKey: KEY_NAIVE });
  client.basePath = fake.apiBase;
  const limiter = createLocalLimiter({ maxConcurrent: 10 });
  fake.resetStats();
  const started = performance.now();
  for (let offset = 0; ; offset += 100) {
    const page = await limiter.schedule(() => client.lists.getListMembersInfo(listId, { count: 100, offset }));
    await Promise.all(
      page.members.flatMap((m) => {
        const v = verificationOf(m.email_address);
        return [
          limiter.schedule(() => client.lists.updateListMember(listId, m.id, { merge_fields: toMailchimpMergeFields(v) }, {})),
          limiter.schedule(() => client.lists.updateListMemberTags(listId, m.id, { tags: toMailchimpTagChanges(v), is_syncing: true })),
        ];
      }),
    );
    if (offset + page.members.length >= page.total_items) break;
  }
  return snapshot(fake, KEY_NAIVE, started);
}

function row(label: string, f: Figures): string {
  const per = (n: number) => ((n * 1000) / MEMBERS).toFixed(2).padStart(8);
  return `${label.padEnd(26)}${per(f.read)}${per(f.write)}${per(f.poll)}${per(f.archives)}${String(f.peak).padStart(7)}${(f.ms / 1000).toFixed(1).padStart(8)} s`;
}

async function main(): Promise<void> {
  const fake = await new FakeMailchimp({ latencyMs: LATENCY_MS, batchStartDelayMs: 20, batchFinishDelayMs: 20 }).start();
  try {
    for (const [key, list] of [[KEY_OURS, 'ours'], [KEY_NAIVE, 'naive']] as const) {
      fake.addAccount(key);
      fake.addList(key, list);
      for (const tag of ['EVRISK', 'EVDATE']) fake.addMergeField(list, { tag, name: tag, type: 'text' });
      fake.addMergeField(list, { tag: 'EVSCORE', name: 'EVSCORE', type: 'number' });
      fake.addMembers(list, Array.from({ length: MEMBERS }, (_, i) => ({ email: `m${i}@example.com`, tags: i % 7 === 0 ? [riskTagName('unknown')] : [] })));
    }
    const connector = new MailchimpConnector(
      { id: 'bench', platform: 'mailchimp', label: 'bench', createdAt: new Date().toISOString(), credentials: { apiKey: KEY_OURS }, settings: { listId: 'ours', apiBase: fake.apiBase, batchPolling: { initialMs: 100, maxMs: 1000 } } },
      { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined },
    );
    const naiveFirst = await naiveSync(fake, 'naive');
    const naiveAgain = await naiveSync(fake, 'naive');
    const first = await oursSync(fake, connector);
    const again = await oursSync(fake, connector);

    console.log(`fake Mailchimp on loopback, ${LATENCY_MS} ms per request, ${MEMBERS} members; figures are calls per 1,000 members`);
    console.log(`${''.padEnd(26)}${'reads'.padStart(8)}${'writes'.padStart(8)}${'polls'.padStart(8)}${'archive'.padStart(8)}${'peak'.padStart(7)}${'time'.padStart(10)}`);
    console.log(row('naive per-member, first', naiveFirst));
    console.log(row('naive per-member, re-sync', naiveAgain));
    console.log(row('connector, first sync', first));
    console.log(row('connector, re-sync', again));
    const calls = (f: Figures) => f.read + f.write + f.poll;
    console.log(`first sync: ${(calls(naiveFirst) / calls(first)).toFixed(0)}x fewer API calls than the baseline; writes ${((first.write * 1000) / MEMBERS).toFixed(2)} per 1,000 (goal <= 2), reads ${((first.read * 1000) / MEMBERS).toFixed(2)} (goal <= 1)`);
    console.log(`re-sync:    ${again.write} writes (goal 0); baseline wrote ${naiveAgain.write}`);
    console.log(`peak simultaneous connections: connector ${Math.max(first.peak, again.peak)}, baseline ${Math.max(naiveFirst.peak, naiveAgain.peak)} (limit 10); 429 answers: ${fake.rejected429}`);
    console.log('polls are GET /batches/{id} status checks; archive = result downloads from storage (not API calls)');
  } finally {
    await fake.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
