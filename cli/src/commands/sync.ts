import type { Command } from 'commander';
import { InputError } from '@verify-hub/core';
import type { RunRecord, SyncPipeline, SyncWorkers } from '@verify-hub/sync-jobs';
import { EXIT } from '../command';
import { nonNegativeInt, positiveInt } from '../options';

interface SyncOptions {
  scope: string;
  connection?: string;
  dryRun?: boolean;
  maxCredits?: number;
  freshnessDays?: number;
  estimate?: boolean;
  follow: boolean;
  withWorker?: boolean;
  progress: boolean;
}

export function register(program: Command): void {
  program
    .command('sync')
    .summary('verify a platform\'s contacts and write the results back (queued on Redis)')
    .description(
      [
        'Start a sync run: page the contacts of <connector> (hubspot, mailchimp, ...), verify them and write',
        'risk, score and reason back. The run is queued in Redis (REDIS_URL) and done by `verify-hub worker`',
        'processes; this command follows its progress (Ctrl-C stops following, not the run).',
        'Results verified within VERIFY_HUB_FRESHNESS_DAYS (30) are reused: no credit, no engine call.',
      ].join('\n'),
    )
    .argument('<connector>', 'the platform: hubspot, mailchimp, ...')
    .option('--scope <scope>', 'what to sync: all, list:<id>, segment:<list>:<id>, changed-since:<ISO time> (the connector\'s README lists them)', 'all')
    .option('--connection <id>', 'the stored connection to use (see the platform\'s setup command)')
    .option('--dry-run', 'verify and report what would change; write nothing')
    .option('--max-credits <n>', 'stop (pause) before spending more than this many credits', nonNegativeInt)
    .option('--freshness-days <n>', 'reuse results younger than this many days (default 30)', positiveInt)
    .option('--estimate', 'only print how many credits the run would cost now (reads the whole source)')
    .option('--no-follow', 'start the run and return its id at once')
    .option('--with-worker', 'also work on the queue in this process until the run ends (no separate worker needed)')
    .option('--no-progress', 'no progress bar')
    .addHelpText('after', '\nExamples:\n  $ verify-hub sync hubspot --connection hubspot-12345 --max-credits 5000\n  $ verify-hub sync mailchimp --connection mc-us1-abc --scope list:1a2b3c --dry-run --with-worker')
    .action(async (connector: string, options: SyncOptions) => {
      process.exitCode = await sync(connector, options);
    });
}

async function sync(platform: string, options: SyncOptions): Promise<number> {
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const { pipeline, engineLabel, config } = await pipelineFromConfig({ withEngine: options.withWorker });
  const { estimateText, pricingFromConfig } = await import('@verify-hub/core');
  // A price (VERIFY_HUB_PRICE_PER_1000) adds money to credits, in the dashboard's words.
  const pricing = pricingFromConfig(config);
  let workers: SyncWorkers | undefined;
  try {
    if (platform === 'file') throw new InputError('connector', 'files are cleaned with `verify-hub clean <file>` (in this process, no Redis needed)');
    const request = {
      platform,
      connectionId: options.connection,
      scope: options.scope,
      options: { dryRun: options.dryRun, maxCredits: options.maxCredits, freshnessDays: options.freshnessDays },
    };
    if (options.estimate) {
      const e = await pipeline.estimate(request);
      console.log(`${e.contacts} contacts, ${e.unique} distinct addresses, ${e.cached} fresh in the cache. ${estimateText(e.estimatedCredits, pricing)}.`);
      return EXIT.ok;
    }
    const run = await pipeline.start(request);
    console.error(`verify-hub: run ${run.id} queued${options.dryRun ? ' (dry run)' : ''}`);
    if (!options.follow) {
      console.log(run.id);
      return EXIT.ok;
    }
    if (options.withWorker) {
      workers = pipeline.startWorkers();
      console.error(`verify-hub: working on the queue in this process with the ${engineLabel}`);
    }
    const final = await follow(pipeline, run.id, options.progress, Boolean(options.withWorker));
    const { runBlock } = await import('../run-format');
    console.log(runBlock(final, pricing));
    if (final.status === 'completed') return EXIT.ok;
    if (final.status === 'paused') console.error(`verify-hub: the run is paused; after fixing the cause: verify-hub runs resume ${final.id}`);
    return EXIT.failed;
  } finally {
    await workers?.close();
    await pipeline.close();
  }
}

/** Polls the run until it ends or pauses; Ctrl-C stops following (the run goes on in the workers). */
async function follow(pipeline: SyncPipeline, id: string, showProgress: boolean, working: boolean): Promise<RunRecord> {
  const { createProgress } = await import('../progress');
  const bar = createProgress('syncing', undefined, showProgress);
  let finished = false;
  let interrupted = false;
  const onSigint = () => (interrupted = true);
  process.once('SIGINT', onSigint);
  const started = Date.now();
  let warned = false;
  try {
    for (;;) {
      const run = (await pipeline.get(id))!;
      const c = run.counters;
      const done = c.written + c.unchanged + c.failed + c.skipped;
      // Against the total the source gave at start (a file's rows, ...); without one, "n so far" and no percentage.
      bar.update(done, `${c.verified} verified, ${c.cached} cached, ${c.credits} credits`, run.expectedTotal);
      finished = run.status === 'completed';
      if (['completed', 'failed', 'cancelled', 'paused'].includes(run.status)) return run;
      if (interrupted) {
        console.error(`\nverify-hub: stopped following; the run goes on. Check it with: verify-hub runs ${id}`);
        return run;
      }
      if (!working && !warned && run.status === 'queued' && Date.now() - started > 10_000) {
        warned = true;
        console.error('\nverify-hub: the run is still queued: is a worker running? Start one with `verify-hub worker`, or use --with-worker');
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    bar.stop(finished);
    process.off('SIGINT', onSigint);
  }
}
