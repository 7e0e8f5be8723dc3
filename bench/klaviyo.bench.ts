/**
 * Klaviyo connector: API calls per 1,000 profiles (first sync, unchanged re-sync, changed-since) and
 * profiles per second at Klaviyo's real per-endpoint limits (enforced by the fake and by the connector's
 * limiters), against the documented ceilings: writing each profile with its own call (PATCH
 * /api/profiles/{id}, 750 a minute steady) and the bulk import job endpoint's own (150 jobs a minute).
 * Four chunks are written at once, as four worker slots would; jobs are polled every
 * KLAVIYO_JOB_POLL_MS (1000 ms, the default). Verdicts are synthetic: this measures the Klaviyo side
 * only. Loopback only.
 */
import { RateLimitError, VerificationSchema, createLocalLimiter, parseScope, type ConnectionRecord, type ContactResult, type Verification, type WriteReport } from '@verify-hub/core';
import { KlaviyoConnector, RATE_LIMITS, klaviyoEnvironment } from '@verify-hub/connector-klaviyo';
import { FakeKlaviyo } from '../test/fakes/klaviyo';

const PROFILES = Number(process.env.BENCH_PROFILES ?? 25_000);
const SLOTS = 4;

const verdict = (email: string, i: number): Verification =>
  VerificationSchema.parse({
    email, normalized: email, score: 90 - (i % 7), risk: i % 10 === 0 ? 'risky' : 'safe', reason: i % 10 === 0 ? 'catch_all' : 'deliverable',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: i % 13 === 0, catchAll: i % 10 === 0 ? null : false, freeProvider: i % 2 === 0, spamTrapRisk: 'none' },
    checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
  });

function connector(fake: FakeKlaviyo): KlaviyoConnector {
  const limiters = new Map<string, ReturnType<typeof createLocalLimiter>>();
  const record: ConnectionRecord = { id: `klaviyo-${fake.accountId}`, platform: 'klaviyo', label: 'bench', createdAt: new Date().toISOString(), credentials: { apiKey: fake.apiKey }, settings: { account: fake.accountId } };
  return new KlaviyoConnector(
    record,
    { limiter: (spec) => limiters.get(spec.key) ?? limiters.set(spec.key, createLocalLimiter(spec)).get(spec.key)!, saveCredentials: async () => undefined },
    { account: fake.accountId },
    klaviyoEnvironment.read({ KLAVIYO_API_BASE: fake.url } as never),
  );
}

/** A call as the host makes it: after a RateLimitError, tried again at its Retry-After. */
let waitedOut = 0;
async function asHost<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof RateLimitError) || attempt === 3) throw error;
      waitedOut++;
      await new Promise((resolve) => setTimeout(resolve, error.waitMs()));
    }
  }
}

interface Figures {
  calls: Record<string, number>;
  total: number;
  written: number;
  pulled: number;
  ms: number;
}

/** A sync as the pipeline runs it: pages read in turn, each chunk written while the next is read, four at a time. */
async function sync(fake: FakeKlaviyo, klaviyo: KlaviyoConnector, scope: string): Promise<Figures> {
  const before = fake.calls.length;
  const started = performance.now();
  const writing = new Set<Promise<WriteReport>>();
  const reports: WriteReport[] = [];
  let pulled = 0;
  let cursor: string | undefined;
  do {
    const page = await asHost(() => klaviyo.pull(parseScope(scope), cursor));
    pulled += page.contacts.length;
    const results: ContactResult[] = page.contacts.map((contact, i) => ({ contact, verification: verdict(contact.email, pulled + i) }));
    const write = asHost(() => klaviyo.write(results, {}));
    writing.add(write);
    void write.then((r) => (reports.push(r), writing.delete(write)));
    if (writing.size >= SLOTS) await Promise.race(writing);
    cursor = page.next;
  } while (cursor);
  await Promise.all(writing);
  const failed = reports.reduce((n, r) => n + r.failed.length, 0);
  if (failed) throw new Error(`${failed} profiles failed`);
  const calls: Record<string, number> = {};
  for (const call of fake.calls.slice(before)) calls[call.operationId] = (calls[call.operationId] ?? 0) + 1;
  return { calls, total: fake.calls.length - before, written: reports.reduce((n, r) => n + r.written, 0), pulled, ms: performance.now() - started };
}

const per1000 = (n: number, profiles: number) => (profiles ? (n * 1000) / profiles : 0).toFixed(2);

function print(label: string, f: Figures): void {
  const rate = f.pulled / (f.ms / 1000);
  console.log(`${label.padEnd(28)}${per1000(f.total, f.pulled).padStart(7)} calls/1,000${String(f.written).padStart(7)} written${rate.toFixed(0).padStart(7)} profiles/s  (${Object.entries(f.calls).map(([k, v]) => `${k} ${per1000(v, f.pulled)}`).join(', ')})`);
}

async function main(): Promise<void> {
  const fake = await new FakeKlaviyo().start();
  try {
    for (let i = 0; i < PROFILES; i++) fake.addProfile(`p${i}@bench.example`);
    const klaviyo = connector(fake);
    const first = await sync(fake, klaviyo, 'all');
    const again = await sync(fake, klaviyo, 'all');
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 1000; i++) fake.addProfile(`new${i}@bench.example`);
    const changed = await sync(fake, klaviyo, `changed-since:${since}`);

    const perProfileSteady = RATE_LIMITS.profiles.steady / 60; // PATCH /api/profiles/{id}: 750 a minute
    const jobSteady = (RATE_LIMITS.importJobCreate.steady / 60) * 1000; // 150 jobs a minute of (our) 1,000 profiles
    const firstRate = first.pulled / (first.ms / 1000);
    console.log(`fake Klaviyo on loopback with Klaviyo's per-endpoint limits (profiles ${RATE_LIMITS.profiles.burst}/s and ${RATE_LIMITS.profiles.steady}/min; import jobs ${RATE_LIMITS.importJobCreate.burst}/s and ${RATE_LIMITS.importJobCreate.steady}/min); ${PROFILES} profiles, jobs polled every 1000 ms, ${SLOTS} chunks written at once`);
    print('first sync', first);
    print('unchanged re-sync', again);
    print('changed-since (1,000 new)', changed);
    console.log(`first sync: ${firstRate.toFixed(0)} profiles/s = ${(firstRate / perProfileSteady).toFixed(0)}x the ${perProfileSteady.toFixed(1)} profiles/s a call per profile allows (750/min steady), ${((100 * firstRate) / jobSteady).toFixed(0)} % of the ${jobSteady.toFixed(0)} profiles/s the import job steady limit sustains at 1,000 a job (a sync under a minute also has the burst)`);
    console.log(`re-sync: ${again.written} written (goal 0), ${again.calls.bulk_import_profiles ?? 0} import jobs; 429 answers: ${JSON.stringify(fake.limits.throttled)} (${waitedOut} waited out as the host does); consent attempts: ${fake.consentAttempts.length}`);
  } finally {
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
