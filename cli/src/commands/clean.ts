import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CategoryFile, FileSummary, RemovableRisk } from '@verify-hub/connector-file';
import type { InProcessRunResult } from '@verify-hub/sync-jobs/in-process';
import { EXIT } from '../command';
import { nonNegativeInt, positiveInt, riskList } from '../options';

// The file connector's removable risks, kept here so `--help` loads no parser library.
const REMOVABLE_RISKS = ['invalid', 'risky', 'unknown'] as const satisfies readonly RemovableRisk[];

interface CleanOptions {
  output?: string;
  removed?: string;
  summary?: string;
  column?: string;
  remove?: string[];
  maxRows?: number;
  maxCredits?: number;
  concurrency?: number;
  dryRun?: boolean;
  split?: boolean;
  force?: boolean;
  progress: boolean;
}

export function register(program: Command): void {
  program
    .command('clean')
    .summary('verify every address of a CSV or Excel file and write a cleaned copy (no account, no server)')
    .description(
      [
        'Verify every address of a .csv, .tsv, .txt or .xlsx file (up to 50,000 rows) and write:',
        '  <name>.cleaned.<ext>  every row kept, with risk, score, reason, flags and checked_at columns',
        '  <name>.removed.<ext>  the rows removed (invalid, and the risks given to --remove)',
        '  <name>.rejected_rows.csv  rows that could not be read, with their line and the reason',
        '  <name>.summary.json   counts per risk, credits used, rows that did not parse',
        'With --split, also a file per category and flag, in CSV and Excel: <name>.<category>.csv and .xlsx',
        '  (safe, risky, invalid, unknown, not_checked, role, disposable, catch_all; only those with rows).',
        'Runs in this process with the local engine, or with the engine at ENGINE_URL (key in ENGINE_API_KEY).',
      ].join('\n'),
    )
    .argument('<file>', 'the file to clean (.csv, .tsv, .txt or .xlsx)')
    .option('-o, --output <path>', 'the cleaned file (default <name>.cleaned.<ext> next to the input)')
    .option('--removed <path>', 'the file of removed rows (default <name>.removed.<ext>)')
    .option('--summary <path>', 'the JSON summary (default <name>.summary.json)')
    .option('--column <name|n>', 'the email column, by header or 1-based number (default: detected)')
    .option('--remove <risks>', `also remove these risks (comma list of ${REMOVABLE_RISKS.join(', ')}); invalid rows are always removed`, riskList(REMOVABLE_RISKS))
    .option('--max-rows <n>', 'refuse files with more data rows than this (default 50000)', positiveInt)
    .option('--max-credits <n>', 'spend at most this many credits; rows past the limit are kept, marked unknown (not_checked), counted as "not checked"', nonNegativeInt)
    .option('--concurrency <n>', 'verifications at once (default 10, or ENGINE_CONCURRENCY)', positiveInt)
    .option('--split', 'also write each category and flag (safe, risky, invalid, unknown, not_checked, role, disposable, catch_all) to its own CSV and .xlsx file')
    .option('--dry-run', 'verify and print the summary, write no file')
    .option('--force', 'clean even when under half of the email column looks like addresses (the wrong-column guard)')
    .option('--no-progress', 'no progress bar')
    .addHelpText('after', '\nExamples:\n  $ verify-hub clean examples/contacts.csv\n  $ verify-hub clean leads.xlsx -o leads-clean.xlsx --remove risky,unknown\n  $ ENGINE_URL=https://api.verify-hub.com ENGINE_API_KEY=... verify-hub clean list.csv')
    .action(async (file: string, options: CleanOptions) => {
      process.exitCode = await clean(file, options);
    });
}

async function clean(file: string, options: CleanOptions): Promise<number> {
  // Loaded on use, so that `verify-hub --help` stays quick.
  const { InMemoryVerificationCache, InputError, costText, estimateText, ledgerLines, loadConfig, pricingFromConfig } = await import('@verify-hub/core');
  const { FileConnector } = await import('@verify-hub/connector-file');
  const { estimateSource, runInProcess } = await import('@verify-hub/sync-jobs/in-process');
  const { engineFromConfig } = await import('../engine-from-config');
  const { createProgress } = await import('../progress');
  const config = loadConfig();
  if (!existsSync(file)) throw new InputError('file', `${file} does not exist`);
  const engine = engineFromConfig(config);
  const remove = ['invalid', ...(options.remove ?? [])].filter((r, i, all) => all.indexOf(r) === i) as RemovableRisk[];
  const connector = new FileConnector({
    input: file,
    output: options.output,
    removedOutput: options.removed,
    summaryOutput: options.summary,
    column: options.column,
    remove,
    maxRows: options.maxRows,
    dryRun: options.dryRun,
    split: options.split,
  });
  const inspection = await connector.inspect();
  // The wrong-column guard: a column of names would be verified (and billed) as addresses and all come out invalid.
  const columnWarning = inspection.emailCheck.warning;
  if (columnWarning && !options.force) {
    const better = inspection.emailCheck.suggestedColumn;
    throw new InputError('column', `${columnWarning} Nothing was verified: ${better ? `pick it with --column "${better}"` : 'name the email column with --column'}, or add --force to clean with "${inspection.emailColumn}" anyway`);
  }
  if (columnWarning) console.error(`verify-hub: warning: ${columnWarning} (going on: --force)`);
  console.error(`verify-hub: ${inspection.rowCount} rows in ${file}, email column "${inspection.emailColumn}", using the ${engine.label}`);
  // The estimate before anything is bought, in the dashboard's words (a ceiling); read by a connector of its own, which writes nothing.
  const pricing = pricingFromConfig(config);
  // The cache serves a row whose address came earlier in the file (verified and paid once): it keeps
  // only the addresses the estimate met more than once.
  const repeated = new Set<string>();
  const cache = new InMemoryVerificationCache({ freshnessDays: config.VERIFY_HUB_FRESHNESS_DAYS, remember: (address) => repeated.has(address) });
  const estimate = await estimateSource(new FileConnector({ input: file, column: options.column, maxRows: options.maxRows }), { kind: 'file' }, cache, (address) => repeated.add(address));
  console.error(`verify-hub: ${estimateText(estimate.estimatedCredits, pricing)}`);

  // The note goes above the bar, which goes on below it (stopping the bar for it froze it for the rest of the run).
  const progress = createProgress('verifying', inspection.rowCount, options.progress);
  engine.local?.once('dns-unavailable', () =>
    progress.note(
      'verify-hub: note: DNS cannot reach the internet from this machine, so the local engine cannot look up mail servers.\n' +
        '  Addresses it cannot decide without DNS are reported as unknown (reason dns_unavailable); syntax, disposable and\n' +
        '  role checks still apply. Run again where DNS works, or set ENGINE_URL and ENGINE_API_KEY to use a hosted engine.',
    ),
  );

  const started = Date.now();
  let result: InProcessRunResult | undefined;
  // Settled rows (written, unchanged, failed, skipped) move by page; rows verified move one by one, so the bar moves with the engine.
  const doneOf = (c: InProcessRunResult['counters'], verifiedNow: number) => Math.max(c.written + c.unchanged + c.failed + c.skipped, Math.min(verifiedNow, inspection.rowCount));
  const creditsWords = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'credit' : 'credits'}`;
  try {
    result = await runInProcess({
      connector,
      scope: { kind: 'file' },
      verifier: engine.verifier,
      cache,
      writeOptions: { dryRun: options.dryRun },
      creditCap: options.maxCredits,
      verifyConcurrency: options.concurrency ?? config.ENGINE_CONCURRENCY ?? 10,
      onProgress: ({ counters, verifiedNow, creditsNow }) => progress.update(doneOf(counters, verifiedNow), creditsWords(Math.max(counters.credits, creditsNow))),
    });
    progress.update(doneOf(result.counters, 0), creditsWords(result.counters.credits));
  } finally {
    progress.stop(result !== undefined && !result.stopped);
  }
  const summary = await connector.finish({ credits: result.counters.credits });
  // A price (VERIFY_HUB_PRICE_PER_1000) adds money to the credits, in the words the dashboard uses.
  printSummary(summary, result, Date.now() - started, file, remove, engine.kind === 'local', ledgerLines, (credits) => costText(credits, pricing));
  if (summary.categoryOutputs) printCategoryFiles(summary, await import('@verify-hub/connector-file'));
  if (result.stopped) {
    console.error(`verify-hub: verification stopped early: ${result.stopped.message}. The rows not verified are marked unknown (not_checked) and counted as "not checked".`);
    // The limit given with --max-credits is what was asked for: not a failure.
    return result.stopped.reason === 'credit_cap' ? EXIT.ok : EXIT.failed;
  }
  return EXIT.ok;
}

/** Where `--split` wrote each category's and flag's rows, with its count (the ledger's, or the flag's). */
function printCategoryFiles(summary: FileSummary, { CATEGORY_FILES, categoryFileLabel: label }: { CATEGORY_FILES: readonly CategoryFile[]; categoryFileLabel: (name: CategoryFile) => string }): void {
  const entries = CATEGORY_FILES.flatMap((name) => (summary.categoryOutputs?.[name] ? [[name, summary.categoryOutputs[name]] as const] : []));
  const count = (name: CategoryFile) => (name in summary.flags ? summary.flags[name as keyof FileSummary['flags']] : summary.ledger[name as keyof FileSummary['ledger']]);
  const lines = ['Per category and flag (CSV and Excel):'];
  for (const [name, files] of entries) lines.push(`  ${label(name)} (${count(name).toLocaleString('en-US')}): ${files.csv}, ${files.xlsx}`);
  if (entries.length === 0) lines.push('  no rows in any category');
  console.log(lines.join('\n'));
}

function printSummary(
  summary: FileSummary,
  result: InProcessRunResult,
  ms: number,
  file: string,
  removed: readonly string[],
  local: boolean,
  ledgerLines: (l: FileSummary['ledger'], reasons: Record<'unknown' | 'not_checked', Record<string, number>>) => string[],
  cost: (credits: number) => string,
): void {
  const rows = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
  const noEmail = summary.skipped.no_email ?? 0;
  // One ledger: every row of the file once, in its final category (the same counts as summary.json and the files).
  const lines = [
    `Cleaned ${rows(summary.ledger.total)} of ${file} in ${(ms / 1000).toFixed(1)} s; every row in exactly one category:`,
    ...ledgerLines(summary.ledger, { unknown: summary.unknownReasons, not_checked: { no_email: noEmail, not_checked: summary.ledger.not_checked - noEmail } }).map((line) => `  ${line}`),
    `  removed: ${rows(summary.removed)} (${removed.join(', ')})`,
    `  spent: ${cost(summary.credits)}${local ? ' (billable results; the local engine charges nothing for them)' : ''}`,
  ];
  if (summary.duplicateRows) lines.push(`  ${rows(summary.duplicateRows)} repeat${summary.duplicateRows === 1 ? 's' : ''} an earlier address (verified once, counted in its category per row)`);
  if (summary.problems.length) {
    lines.push(`  ${rows(summary.problems.length)} could not be read:`);
    for (const p of summary.problems.slice(0, 10)) lines.push(`    line ${p.line}: ${p.message}`);
    if (summary.problems.length > 10) lines.push(`    ... and ${summary.problems.length - 10} more in ${summary.summaryOutput}`);
  }
  if (summary.dryRun) lines.push('Dry run: no file written.');
  else {
    lines.push(`Wrote ${summary.output}`, `      ${summary.removedOutput} (removed rows)`);
    if (summary.rejected) lines.push(`      ${summary.rejectedOutput} (${rows(summary.rejected)} that could not be read, with line and reason)`);
    lines.push(`      ${summary.summaryOutput}`);
  }
  const recheck = summary.ledger.unknown + summary.ledger.not_checked - noEmail;
  if (recheck > 0 && result.counters.pulled > 0) lines.push(`Unknown and not-checked rows cost nothing; run clean again later to check them (${rows(recheck)}).`);
  console.log(lines.join('\n'));
}
