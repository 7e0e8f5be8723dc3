/**
 * BatchVerifier throughput against the fake engine at 200 ms latency with a server-side rate limit R:
 * prints achieved rate / R (goal >= 0.95) and the speed-up over a sequential one-at-a-time loop
 * measured in the same run.
 */
import { BatchVerifier, EngineClient } from '@verify-hub/core';
import { FakeEngine } from '../test/fakes/engine';

const LATENCY_MS = 200;
const R = Number(process.env.BENCH_RATE ?? 50); // engine limit, requests per second
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const KEY = 'bench-key';

async function main(): Promise<void> {
  const engine = new FakeEngine({ apiKey: KEY, latencyMs: LATENCY_MS, ratePerSecond: R, resetForm: 'epoch-ms' });
  const url = await engine.start();
  const client = new EngineClient({ baseUrl: url, apiKey: KEY, timeoutMs: 5_000 });
  const list = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}@example.com`);

  // Baseline: one address at a time.
  const seqList = list(15, 'seq');
  let t = performance.now();
  for (const email of seqList) await client.verify(email);
  const seqRate = seqList.length / ((performance.now() - t) / 1000);

  // Wait for a fresh rate window so the batch starts clean.
  await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
  const n = R * SECONDS;
  const concurrency = Math.ceil((R * LATENCY_MS) / 1000) * 2;
  t = performance.now();
  const report = await new BatchVerifier(client, { concurrency }).verifyAll(list(n, 'batch'));
  const elapsed = (performance.now() - t) / 1000;
  const rate = report.counters.verified / elapsed;
  const total429 = engine.requests.length - seqList.length - report.counters.verified;
  await engine.stop();

  console.log(`engine: ${LATENCY_MS} ms latency, limit R = ${R}/s; batch of ${n} at concurrency ${concurrency}`);
  console.log(`sequential loop:   ${seqRate.toFixed(2)} verifications/s`);
  console.log(`BatchVerifier:     ${rate.toFixed(2)} verifications/s in ${elapsed.toFixed(2)} s (${report.counters.rateLimitWaits} rate-limit waits, ${total429} answers were 429)`);
  console.log(`achieved / R:      ${(rate / R).toFixed(3)}   (goal >= 0.95)`);
  console.log(`vs sequential:     ${(rate / seqRate).toFixed(1)}x`);
  console.log(`lost addresses:    ${n - report.counters.verified}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
