/**
 * The 1,000,000-contact sync's memory, as its own process (bench/built/run-built.ts runs it on the
 * built packages, no ts-node): the in-process executor over a fake source of 1,000,000 contacts and
 * the in-process fake engine (every answer read by core's engine-answer reader), pages of 1,000, two
 * pages at a time. Prints its throughput, heap figures and, last, its peak RSS for the parent.
 */
import { runInProcess } from '@verify-hub/sync-jobs';
import { FakeSource, InProcessFakeVerifier } from '../../test/fakes/source';
import { reportPeakRss } from '../built/run-built';

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 1_000_000);
  const source = new FakeSource({ size: n, pageSize: 1_000, track: false });
  const verifier = new InProcessFakeVerifier();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  const marks: string[] = [];
  let nextMark = n / 10;
  const started = Date.now();
  const r = await runInProcess({
    connector: source,
    scope: { kind: 'all' },
    verifier,
    pageConcurrency: 2,
    verifyConcurrency: 50,
    onProgress: ({ counters }) => {
      if (counters.written % 1000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      if (counters.written >= nextMark) {
        marks.push(`${Math.round(nextMark / 1000)}k: ${mb(process.memoryUsage().rss)}`);
        nextMark += n / 5;
      }
    },
  });
  const ms = Date.now() - started;
  console.log(`${r.counters.written.toLocaleString('en')} written in ${(ms / 1000).toFixed(0)} s (${Math.round((n * 1000) / ms)}/s); RSS before the first contact ${mb(before.rss)}, heap used peak ${mb(peakHeap)}; RSS along the way ${marks.join(', ')}`);
  reportPeakRss();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
