/**
 * Brevo connector: API calls per 1,000 contacts (first sync, unchanged re-sync) and contacts per
 * second at Brevo's real general limits (contacts endpoints 10 a second, enforced by the fake and by
 * the connector's limiters), against the one-call-a-contact baseline (`PUT /contacts/{id}`, the
 * connector's `writeMode: "update"`) measured in the same process. Verdicts are synthetic: this
 * measures the Brevo side only. Loopback only.
 */
import { createLocalLimiter, RateLimitError, VerificationSchema, parseScope, type ContactResult, type WriteReport, type ConnectionRecord, type ConnectorDeps, type Verification } from '@verify-hub/core';
import { BREVO_LIMITS, BrevoConnector, BrevoSettings, type BrevoSettings as Settings } from '@verify-hub/connector-brevo';
import { FakeBrevo } from '../test/fakes/brevo/fake-brevo';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const BASELINE_CONTACTS = Number(process.env.BENCH_BASELINE_CONTACTS ?? 100);

const deps = (): ConnectorDeps => {
  const limiters = new Map<string, ReturnType<typeof createLocalLimiter>>();
  return { limiter: (spec) => limiters.get(spec.key) ?? limiters.set(spec.key, createLocalLimiter(spec)).get(spec.key)!, saveCredentials: async () => undefined };
};

const verdict = (email: string, i: number): Verification =>
  VerificationSchema.parse({
    email, normalized: email, score: 90 - (i % 7), risk: i % 10 === 0 ? 'risky' : 'safe', reason: i % 10 === 0 ? 'catch_all' : 'deliverable',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: i % 13 === 0, catchAll: i % 10 === 0 ? null : false, freeProvider: i % 2 === 0, spamTrapRisk: 'none' },
    checkedAt: '2026-11-20T08:30:00.000Z', billable: true,
  });

function connector(fake: FakeBrevo, settings: Partial<Settings>): BrevoConnector {
  const record: ConnectionRecord = { id: 'brevo-bench', platform: 'brevo', label: 'bench', createdAt: new Date().toISOString(), credentials: { apiKey: fake.apiKey }, settings: { account: 'bench', ...settings } };
  return new BrevoConnector(record, deps(), BrevoSettings.parse(record.settings), fake.url);
}

interface Figures {
  calls: Record<string, number>;
  total: number;
  /** Contact writes the fake applied (a batch the host tried again after a 429 finds its values there and writes nothing twice). */
  written: number;
  ms: number;
}

/**
 * A call as the host makes it: tried once more after a RateLimitError's reset (at most a few times).
 * The fake counts each call when it arrives; with client and fake in one loaded process, calls the
 * limiter started 110 ms apart can arrive bunched (Brevo's network can do the same).
 */
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

/** A sync as the pipeline runs it: each page written (in batches of 1,000) while the next is read. */
async function sync(fake: FakeBrevo, brevo: BrevoConnector): Promise<Figures> {
  const before = fake.calls.length;
  const writesBefore = [...fake.writesPerContact.values()].reduce((a, b) => a + b, 0);
  const started = performance.now();
  const writes: Promise<WriteReport>[] = [];
  let cursor: string | undefined;
  do {
    const page = await asHost(() => brevo.pull(parseScope('all'), cursor));
    const results: ContactResult[] = page.contacts.map((contact) => ({ contact, verification: verdict(contact.email, Number(contact.id)) }));
    writes.push(asHost(() => brevo.write(results, {})));
    cursor = page.next;
  } while (cursor);
  const reports = await Promise.all(writes);
  const failed = reports.reduce((n, r) => n + r.failed.length, 0);
  if (failed) throw new Error(`${failed} contacts failed`);
  const calls: Record<string, number> = {};
  for (const call of fake.calls.slice(before)) calls[call.replace(/\/\d+$/, '/{id}')] = (calls[call.replace(/\/\d+$/, '/{id}')] ?? 0) + 1;
  return { calls, total: fake.calls.length - before, written: [...fake.writesPerContact.values()].reduce((a, b) => a + b, 0) - writesBefore, ms: performance.now() - started };
}

const per1000 = (n: number, contacts: number) => ((n * 1000) / contacts).toFixed(2);

function print(label: string, f: Figures, contacts: number): void {
  const rate = contacts / (f.ms / 1000);
  console.log(`${label.padEnd(30)}${per1000(f.total, contacts).padStart(9)} calls/1,000${String(f.written).padStart(8)} written${rate.toFixed(0).padStart(8)} contacts/s  (${Object.entries(f.calls).map(([k, v]) => `${k} ${per1000(v, contacts)}`).join(', ')})`);
}

async function main(): Promise<void> {
  const fake = await new FakeBrevo().start();
  fake.importDelayMs = 100;
  try {
    for (let i = 0; i < CONTACTS; i++) fake.addContact(`c${i}@bench.example`);
    const ours = connector(fake, {});
    await ours.ensureSchema();
    const first = await sync(fake, ours);
    const again = await sync(fake, ours);

    const baselineFake = await new FakeBrevo().start();
    try {
      for (let i = 0; i < BASELINE_CONTACTS; i++) baselineFake.addContact(`c${i}@bench.example`);
      const perContact = connector(baselineFake, { writeMode: 'update' });
      await perContact.ensureSchema();
      const baseline = await sync(baselineFake, perContact);

      console.log(`fake Brevo on loopback with Brevo's general limits (contacts endpoints ${BREVO_LIMITS.contacts.perSecond}/s and ${BREVO_LIMITS.contacts.perHour.toLocaleString('en')}/h, others ${BREVO_LIMITS.other.perHour}/h); ${CONTACTS} contacts, baseline ${BASELINE_CONTACTS}`);
      print('imports, first sync', first, CONTACTS);
      print('imports, unchanged re-sync', again, CONTACTS);
      print('baseline PUT a contact', baseline, BASELINE_CONTACTS);
      const ceiling = BREVO_LIMITS.contacts.perSecond; // contacts a second when every contact costs one call of the 10/s budget
      const firstRate = CONTACTS / (first.ms / 1000);
      const budgetRate = (BREVO_LIMITS.contacts.perSecond * 1000) / ((first.total * 1000) / CONTACTS);
      console.log(`first sync: ${firstRate.toFixed(0)} contacts/s = ${(firstRate / ceiling).toFixed(0)}x the ${ceiling} contacts/s a call-per-contact write allows at ${ceiling} calls/s; ${((100 * firstRate) / budgetRate).toFixed(0)} % of the ${budgetRate.toFixed(0)} contacts/s its ${per1000(first.total, CONTACTS)} calls per 1,000 allow`);
      console.log(`first sync: ${(((baseline.total / BASELINE_CONTACTS) * 1000) / ((first.total / CONTACTS) * 1000)).toFixed(0)}x fewer calls than the baseline; hourly budget: ${((first.total / CONTACTS) * 1_000_000).toFixed(0)} calls per million contacts of ${BREVO_LIMITS.contacts.perHour.toLocaleString('en')} an hour`);
      console.log(`re-sync: ${again.written} written (goal 0), ${fake.imports.length - Math.ceil(CONTACTS / 1000)} extra imports; 429 answers: ${fake.limits.refused.contacts + baselineFake.limits.refused.contacts} contacts, ${fake.limits.refused.other} other (${waitedOut} waited out as the host does)`);
    } finally {
      await baselineFake.stop();
    }
  } finally {
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
