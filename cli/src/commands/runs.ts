import type { Command } from 'commander';
import { InputError } from '@verify-hub/core';
import type { RunRecord } from '@verify-hub/sync-jobs';
import { EXIT } from '../command';
import { nonNegativeInt, positiveInt } from '../options';

const ACTIONS = ['list', 'resume', 'cancel', 'report', 'recheck', 'download'] as const;
const STATUSES = ['queued', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
const SOURCES = ['file', 'platform'] as const;

interface RunsOptions {
  limit: number;
  status?: string;
  source?: string;
  search?: string;
  maxCredits?: number;
  json?: boolean;
  category?: string;
  format: string;
  out?: string;
}

export function register(program: Command): void {
  program
    .command('runs')
    .summary('list sync runs, show one, resume, cancel or report it')
    .description(
      [
        'verify-hub runs [list]               the latest runs, by name (--status, --source, --search to narrow)',
        'verify-hub runs <id>                 one run: status, why it paused, counters',
        'verify-hub runs resume <id>          resume a paused run (quota reset, key fixed, cap raised), or repair a stuck running one',
        'verify-hub runs cancel <id>          cancel a queued, running or paused run',
        'verify-hub runs report <id>          the per-contact report as CSV',
        'verify-hub runs recheck <id>         a new run that verifies again the unknown results of <id>',
        'verify-hub runs download <id> --category invalid [--format xlsx] [--out path]',
        '                                     one category\'s rows of a completed file run (safe, risky, invalid, unknown,',
        '                                     not_checked, unreadable, or the flags role, disposable, catch_all)',
      ].join('\n'),
    )
    .argument('[action-or-id]', `${ACTIONS.join(', ')}, or a run id`)
    .argument('[id]', 'the run id, after an action')
    .option('--limit <n>', 'how many runs to list', positiveInt, 20)
    .option('--status <status>', `list only runs in this status (${STATUSES.join(', ')})`)
    .option('--source <source>', 'list only file runs (file) or platform runs (platform)')
    .option('--search <words>', "list only runs whose name (or connection's label) contains these words, any letter case")
    .option('--max-credits <n>', 'with resume: the new credit cap', nonNegativeInt)
    .option('--json', 'print JSON')
    .option('--category <name>', 'with download: the category or flag')
    .option('--format <format>', 'with download: csv or xlsx', 'csv')
    .option('--out <path>', 'with download: where to write it (default <file>-<category>.<format> in this folder; never over an existing file)')
    .action(async (first: string | undefined, second: string | undefined, options: RunsOptions) => {
      process.exitCode = await runs(first, second, options);
    });
}

async function runs(first: string | undefined, second: string | undefined, options: RunsOptions): Promise<number> {
  const action = (ACTIONS as readonly string[]).includes(first ?? '') ? (first as (typeof ACTIONS)[number]) : undefined;
  const id = action ? second : first;
  if (action === 'list' && id) throw new InputError('id', '`runs list` takes no run id: `verify-hub runs <id>` shows one run');
  if (action && action !== 'list' && !id) throw new InputError('id', `\`runs ${action}\` needs a run id`);
  if (!action && second) throw new InputError('action', `unknown action "${first}" (use ${ACTIONS.join(', ')}, or a run id alone)`);
  if (options.status && !(STATUSES as readonly string[]).includes(options.status)) throw new InputError('--status', `"${options.status}" is not a run status (${STATUSES.join(', ')})`);
  if (options.source && !(SOURCES as readonly string[]).includes(options.source)) throw new InputError('--source', `"${options.source}" is not a source (${SOURCES.join(' or ')})`);
  if (options.search !== undefined && options.search.length > 200) throw new InputError('--search', 'is longer than 200 characters');
  const { pricingFromConfig } = await import('@verify-hub/core');
  const { pipelineFromConfig } = await import('../pipeline-from-config');
  const { ledgerBlock, runBlock, runLine } = await import('../run-format');
  const { pipeline, config } = await pipelineFromConfig();
  const pricing = pricingFromConfig(config);
  const block = (run: Parameters<typeof runBlock>[0]) => runBlock(run, pricing);
  const print = (value: unknown, text: string) => console.log(options.json ? JSON.stringify(value, null, 2) : text);
  try {
    if (!id) {
      const filter = { limit: options.limit, status: options.status as (typeof STATUSES)[number] | undefined, source: options.source as (typeof SOURCES)[number] | undefined, search: options.search };
      const list = await pipeline.list(filter);
      const filtered = Boolean(filter.status || filter.source || filter.search?.trim());
      print(list, list.length ? list.map(runLine).join('\n') : filtered ? 'no runs match' : 'no runs yet: start one with `verify-hub sync <connector>`');
      return EXIT.ok;
    }
    switch (action) {
      case undefined:
      case 'list': {
        const run = await pipeline.get(id);
        if (!run) throw new InputError('id', `no run ${id}`);
        const { ledger } = await pipeline.breakdown(id);
        print({ ...run, ledger }, `${block(run)}\n${ledgerBlock(ledger)}`);
        return EXIT.ok;
      }
      case 'resume': {
        const run = await pipeline.resume(id, { maxCredits: options.maxCredits });
        print(run, `resumed\n${block(run)}`);
        return EXIT.ok;
      }
      case 'cancel': {
        const run = await pipeline.cancel(id);
        print(run, `cancelled\n${block(run)}`);
        return EXIT.ok;
      }
      case 'recheck': {
        const run = await pipeline.recheckUnknowns(id);
        print(run, `run ${run.id} queued to re-check the unknown results of ${id}`);
        return EXIT.ok;
      }
      case 'download': {
        const run = await pipeline.get(id);
        if (!run) throw new InputError('id', `no run ${id}`);
        const written = await downloadCategory(run, options, (sourceId) => pipeline.get(sourceId));
        print({ run: id, category: options.category, format: options.format, path: written }, `wrote ${written}`);
        return EXIT.ok;
      }
      case 'report': {
        if (!(await pipeline.get(id))) throw new InputError('id', `no run ${id}`);
        console.log('contact_id,email,risk,score,reason,outcome,error');
        for await (const row of pipeline.report(id)) {
          console.log([row.contactId, row.email, row.risk ?? '', row.score ?? '', row.reason ?? '', row.outcome, row.error ?? ''].map(csvCell).join(','));
        }
        return EXIT.ok;
      }
    }
  } finally {
    await pipeline.close();
  }
}

/** Copies one category's file of a completed file run (the file the hub serves for it) to `--out`. */
async function downloadCategory(run: RunRecord, options: RunsOptions, getRun: (id: string) => Promise<RunRecord | undefined>): Promise<string> {
  const { access, copyFile, constants } = await import('node:fs/promises');
  const { DOWNLOAD_CATEGORIES, downloadFileName, downloadPath, inputOfFileRun } = await import('@verify-hub/webhooks-in');
  const category = DOWNLOAD_CATEGORIES.find((c) => c === options.category);
  if (!category) throw new InputError('--category', options.category ? `"${options.category}" is not one of ${DOWNLOAD_CATEGORIES.join(', ')}` : `\`runs download\` needs --category (${DOWNLOAD_CATEGORIES.join(', ')})`);
  const format = options.format === 'csv' || options.format === 'xlsx' ? options.format : undefined;
  if (!format) throw new InputError('--format', `"${options.format}" is not csv or xlsx`);
  if (category === 'unreadable' && format !== 'csv') throw new InputError('--format', 'the rows that could not be read are a CSV file only');
  const found = await inputOfFileRun(run, getRun);
  if (!found) throw new InputError('id', `run ${run.id} is not a file run`);
  if (run.status !== 'completed') throw new InputError('id', `run ${run.id} is ${run.status}; its files are ready when it completes`);
  const source = downloadPath(found.input, category, format, run);
  const target = options.out ?? downloadFileName(found.input, category, format);
  await access(source).catch(() => {
    throw new InputError('--category', `run ${run.id} has no ${category.replace(/_/g, ' ')} rows to download (or was cleaned without per-category files)`);
  });
  try {
    await copyFile(source, target, constants.COPYFILE_EXCL);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new InputError('--out', `${target} exists already: choose another path`);
    if (code === 'ENOENT') throw new InputError('--out', `cannot write ${target}: its folder does not exist`);
    throw error;
  }
  return target;
}

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
