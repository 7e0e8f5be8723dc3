import type { Command } from 'commander';
import { ACCURACY_WINDOWS, InputError } from '@verify-hub/core';
import { EXIT } from '../command';

interface AccuracyOptions {
  connection?: string;
  days: string;
  read?: boolean;
  json?: boolean;
}

/**
 * `verify-hub accuracy [--connection <id>] [--days 30|90] [--read] [--json]`: how the verdicts held up
 * on the customer's own sends (docs/bounces.md), from the bounce ledgers the workers keep; `--read`
 * reads the platforms' bounces first.
 */
export function register(program: Command): void {
  program
    .command('accuracy')
    .description('How the verdicts held up on your own sends: of the addresses called safe, risky or unknown that were sent to, how many bounced, by reason; invalid ones sent anyway that did not bounce (needs REDIS_URL, HUB_SECRET_KEY)')
    .option('--connection <id>', 'one stored connection only (default: every connection, and all of them together)')
    .option('--days <n>', `the window: ${ACCURACY_WINDOWS.join(' or ')} days`, '30')
    .option('--read', "read the platforms' bounces now, before reporting")
    .option('--json', 'print JSON (the same answer as GET /api/accuracy)')
    .action(async (options: AccuracyOptions) => {
      process.exitCode = await accuracy(options);
    });
}

async function accuracy(options: AccuracyOptions): Promise<number> {
  const days = Number(options.days);
  if (!(ACCURACY_WINDOWS as readonly number[]).includes(days)) throw new InputError('days', `must be ${ACCURACY_WINDOWS.join(' or ')}`);
  if (options.connection !== undefined && !/^[A-Za-z0-9._:-]{1,200}$/.test(options.connection)) throw new InputError('connection', 'must be a connection id');
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const { accuracyText } = await import('../accuracy-format');
  const { pipeline } = await pipelineFromConfig();
  try {
    if (options.read) {
      for (const read of await pipeline.readBounces(options.connection)) {
        console.error(read.skipped ? `${read.connectionId}: ${read.skipped}` : `${read.connectionId}: ${read.records.toLocaleString('en-US')} records read, ${read.corrected} verdicts corrected (${read.written} written back, ${read.writeFailed} not), ${read.calls} platform calls`);
      }
    }
    const answer = await pipeline.accuracy(days, options.connection);
    console.log(options.json ? JSON.stringify(answer, null, 2) : accuracyText(answer));
    return EXIT.ok;
  } finally {
    await pipeline.close();
  }
}
