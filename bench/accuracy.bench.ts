/**
 * `npm run bench accuracy`: the local engine in the labelled scripted mail world (test/fakes/mail-peers/
 * lab-world.ts), every SMTP reply held 50 ms.
 *
 * 1. Accuracy: a confusion matrix of expected vs given risk over every labelled case, and the acceptance
 *    counts (existing mailboxes called invalid, policy blocks not unknown, provider "user unknown" forms
 *    not invalid).
 * 1b. The corpus of real replies (engine/test-data/smtp-replies.json): each reply answered by a loopback
 *    MX at its stage; the confusion matrix, verdicts per label, the issue's acceptance figures, and the
 *    corpus size per label and per source.
 * 2. Latency, one address at a time over the same cases: p50/p95, and SMTP sessions per address. The
 *    baseline, measured in the same run, is a minimal client doing one bare conversation (connect,
 *    greeting, EHLO, MAIL, RCPT, QUIT) with the same peer: what the round trips alone cost.
 * 3. Volume: 1,000 addresses over 20 domains, 20 at a time: sessions per address, catch-all probes per
 *    domain, p50/p95 per address.
 * 4. A tarpit: what one address at a server that never answers costs, against the SMTP budget.
 */
import { connect as netConnect } from 'node:net';
import { LocalEngine, type LocalEngineOptions } from '@verify-hub/engine';
import type { Risk } from '@verify-hub/core';
import { loadCorpus, startCorpusWorld, startLabWorld, type CorpusReply, type LabWorld } from '../test/fakes/mail-peers';

const REPLY_DELAY_MS = 50;
const RISKS: Risk[] = ['safe', 'risky', 'invalid', 'unknown'];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function engineIn(lab: LabWorld, options: LocalEngineOptions = {}): LocalEngine {
  return new LocalEngine({ dnsServers: [lab.dnsServer], smtpPort: lab.smtpPort, allowPrivateMx: true, heloName: 'verifier.acme-tools.com', mailFrom: 'probe@verifier.acme-tools.com', dnsblZones: [], ...options });
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

/** One bare SMTP conversation (no TLS), reply by reply: the round trips' own cost. */
function bareConversation(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    const commands = ['EHLO bench.acme-tools.com', 'MAIL FROM:<probe@acme-tools.com>', 'RCPT TO:<john@acme-mail.com>', 'QUIT'];
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const lines = buffer.split('\r\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (/^\d{3}-/.test(line)) continue;
        const next = commands.shift();
        if (next) socket.write(`${next}\r\n`);
        else socket.end();
      }
    });
    socket.on('close', () => resolve(performance.now() - started));
    socket.on('error', reject);
  });
}

function printMatrix(rows: { expected: Risk; given: Risk }[]): void {
  console.log(`confusion matrix (rows: expected, columns: given), ${rows.length} cases`);
  console.log(`${'expected \\ given'.padEnd(18)}${RISKS.map((r) => r.padStart(9)).join('')}`);
  for (const e of RISKS) console.log(`${e.padEnd(18)}${RISKS.map((g) => String(rows.filter((r) => r.expected === e && r.given === g).length).padStart(9)).join('')}`);
  const right = rows.filter((r) => r.expected === r.given).length;
  console.log(`agreement: ${right}/${rows.length} (${((right / rows.length) * 100).toFixed(1)}%)`);
}

async function main(): Promise<void> {
  const lab = await startLabWorld({ replyDelayMs: REPLY_DELAY_MS });
  try {
    // 1. Accuracy, 8 at a time.
    const engine = engineIn(lab);
    const verdicts = new Map<string, Risk>();
    const queue = [...lab.cases];
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) verdicts.set(c.address, (await engine.verify(c.address)).risk);
    }));
    console.log(`\n-- accuracy (${lab.cases.length} labelled cases, ${new Set(lab.cases.map((c) => c.behaviour)).size} behaviours, ${REPLY_DELAY_MS} ms per SMTP reply)`);
    printMatrix(lab.cases.map((c) => ({ expected: c.expected, given: verdicts.get(c.address)! })));
    const existingInvalid = lab.cases.filter((c) => c.truth === 'exists' && verdicts.get(c.address) === 'invalid');
    const policyNotUnknown = lab.cases.filter((c) => c.policyBlock && verdicts.get(c.address) !== 'unknown');
    const unknownUserNotInvalid = lab.cases.filter((c) => c.userUnknownOf && c.userUnknownOf !== 'any' && verdicts.get(c.address) !== 'invalid');
    console.log(`existing mailboxes called invalid: ${existingInvalid.length}; policy blocks not unknown: ${policyNotUnknown.length}/${lab.cases.filter((c) => c.policyBlock).length}; provider "user unknown" forms not invalid: ${unknownUserNotInvalid.length}/${lab.cases.filter((c) => c.userUnknownOf && c.userUnknownOf !== 'any').length}`);
    for (const c of lab.cases.filter((x) => x.expected !== verdicts.get(x.address))) console.log(`  differs: ${c.address} (${c.behaviour}): expected ${c.expected}, given ${verdicts.get(c.address)}`);

    await corpusAccuracy();

    // 2. Latency, one at a time (fresh engine: cold caches), against bare conversations.
    const baseline: number[] = [];
    for (let i = 0; i < 20; i++) baseline.push(await bareConversation(lab.smtpPort));
    const sequential = engineIn(lab);
    const sessionsBefore = lab.sessions();
    const smtpCases = lab.cases.filter((c) => !c.behaviour.includes('tarpit'));
    const latencies: number[] = [];
    for (const c of smtpCases) latencies.push((await timed(() => sequential.verify(c.address)))[1]);
    const sessionsSequential = lab.sessions() - sessionsBefore;
    const b50 = percentile(baseline, 50);
    console.log(`\n-- latency, one address at a time (${smtpCases.length} addresses, tarpit excluded; its cost is below)`);
    console.log(`baseline (bare conversation, no TLS): p50 ${b50.toFixed(0)} ms, p95 ${percentile(baseline, 95).toFixed(0)} ms`);
    console.log(`engine: p50 ${percentile(latencies, 50).toFixed(0)} ms (${(percentile(latencies, 50) / b50).toFixed(2)}x baseline), p95 ${percentile(latencies, 95).toFixed(0)} ms (${(percentile(latencies, 95) / b50).toFixed(2)}x baseline)`);
    console.log(`SMTP sessions per address: ${(sessionsSequential / smtpCases.length).toFixed(2)}`);

    // 3. Volume: 1,000 addresses over 20 domains, 20 at a time.
    const addresses: string[] = [];
    for (let d = 0; d < 20; d++) {
      const domain = `volume-${d}.com`;
      lab.dns.set(domain, { MX: [{ exchange: `mx.${domain}`, priority: 10 }], TXT: ['v=spf1 -all'] }).set(`mx.${domain}`, { A: ['127.0.0.1'] });
      for (let i = 0; i < 50; i++) {
        const address = `person${i}@${domain}`;
        addresses.push(address);
        lab.peers.find((p) => p.port === lab.smtpPort)!.script(address, i % 10 === 9 ? 'not-found' : 'accept');
      }
    }
    const shuffled = addresses.map((a, i) => [a, (i * 7919) % addresses.length] as const).sort((a, b) => a[1] - b[1]).map(([a]) => a);
    const volume = engineIn(lab);
    const before = lab.sessions();
    const probesBefore = lab.catchAllProbes();
    const volumeLatencies: number[] = [];
    const volumeRisks = new Map<Risk, number>();
    const pending = [...shuffled];
    const [, wall] = await timed(() => Promise.all(Array.from({ length: 20 }, async () => {
      for (let a = pending.shift(); a; a = pending.shift()) {
        const [v, ms] = await timed(() => volume.verify(a));
        volumeLatencies.push(ms);
        volumeRisks.set(v.risk, (volumeRisks.get(v.risk) ?? 0) + 1);
      }
    })));
    const probes = [...lab.catchAllProbes()].filter(([d]) => d.startsWith('volume-')).map(([d, n]) => n - (probesBefore.get(d) ?? 0));
    console.log(`\n-- volume: ${addresses.length} addresses over 20 domains, 20 at a time, ${REPLY_DELAY_MS} ms per reply`);
    console.log(`risks: ${RISKS.map((r) => `${r} ${volumeRisks.get(r) ?? 0}`).join(', ')} (900 exist, 100 missing); wall ${(wall / 1000).toFixed(1)} s`);
    console.log(`SMTP sessions per address: ${((lab.sessions() - before) / addresses.length).toFixed(3)}; catch-all probes per domain: max ${Math.max(0, ...probes)}`);
    console.log(`per address: p50 ${percentile(volumeLatencies, 50).toFixed(0)} ms, p95 ${percentile(volumeLatencies, 95).toFixed(0)} ms (${(percentile(volumeLatencies, 95) / b50).toFixed(2)}x baseline p50)`);

    // 4. A tarpit.
    const budget = engineIn(lab).options.smtpBudgetMs;
    const [tarpit, tarpitMs] = await timed(() => engineIn(lab).verify('tarpit@acme-mail.com'));
    console.log(`\n-- tarpit: ${tarpit.risk} / ${tarpit.reason} after ${tarpitMs.toFixed(0)} ms (SMTP budget ${budget} ms: ${(tarpitMs / budget).toFixed(2)}x)`);
  } finally {
    await lab.stop();
  }
}

/** 1b. Every real reply of the corpus through a loopback MX and the engine, 8 at a time. */
async function corpusAccuracy(): Promise<void> {
  const corpus = loadCorpus();
  const world = await startCorpusWorld(corpus);
  const engine = new LocalEngine({ dnsServers: [world.dnsServer], smtpPort: world.smtpPort, allowPrivateMx: true, heloName: 'verifier.acme-tools.com', mailFrom: 'probe@verifier.acme-tools.com', dnsblZones: [], smtpCommandTimeoutMs: 5000, smtpBudgetMs: 10_000 });
  const given = new Map<string, Risk>();
  try {
    const queue = [...corpus];
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let e = queue.shift(); e; e = queue.shift()) given.set(e.id, (await engine.verify(world.addressOf.get(e.id)!)).risk);
    }));
  } finally {
    await engine.close();
    await world.stop();
  }
  const count = (rows: CorpusReply[], risk: Risk) => rows.filter((e) => given.get(e.id) === risk).length;
  console.log(`\n-- the corpus: ${corpus.length} real replies (engine/test-data), each answered by a loopback MX at its stage`);
  printMatrix(corpus.map((e) => ({ expected: e.expected, given: given.get(e.id)! })));
  console.log(`${'label (count)'.padEnd(24)}${RISKS.map((r) => r.padStart(9)).join('')}`);
  for (const label of [...new Set(corpus.map((e) => e.label))].sort()) {
    const rows = corpus.filter((e) => e.label === label);
    console.log(`${`${label} (${rows.length})`.padEnd(24)}${RISKS.map((r) => String(count(rows, r)).padStart(9)).join('')}`);
  }
  const existing = corpus.filter((e) => ['exists', 'full', 'rate_limited', 'greylisted', 'policy'].includes(e.label));
  const missing = corpus.filter((e) => e.label === 'missing');
  const temporary = corpus.filter((e) => e.reply.startsWith('4') && e.label !== 'full');
  console.log(`existing, full, rate-limited or policy-blocked called invalid: ${count(existing, 'invalid')}/${existing.length}; missing (5xx) called invalid: ${count(missing, 'invalid')}/${missing.length} (${((count(missing, 'invalid') / missing.length) * 100).toFixed(1)}%); temporary (4xx, not full) unknown: ${count(temporary, 'unknown')}/${temporary.length}`);
  const bySource = new Map<string, number>();
  for (const e of corpus) {
    const source = String(e.source.repo ?? 'published documentation and bounce reports (quoted)');
    bySource.set(source, (bySource.get(source) ?? 0) + 1);
  }
  console.log(`per source: ${[...bySource].map(([s, n]) => `${s} ${n}`).join(', ')}`);
  for (const e of corpus.filter((x) => x.expected !== given.get(x.id))) console.log(`  differs: ${e.label} [${e.stage}] ${e.reply.slice(0, 100)}: expected ${e.expected}, given ${given.get(e.id)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
