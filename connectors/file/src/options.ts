import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { InputError, ROW_FLAGS, validSettings, type LedgerCategory, type RowFlag } from '@verify-hub/core';

export const REMOVABLE_RISKS = ['invalid', 'risky', 'unknown'] as const;
export type RemovableRisk = (typeof REMOVABLE_RISKS)[number];

export const DEFAULT_MAX_ROWS = 50_000;
export const DEFAULT_PAGE_SIZE = 1_000;

export interface FileConnectorOptions {
  /** The file to clean: .csv, .tsv, .txt (delimited text) or .xlsx. */
  input: string;
  /** Cleaned file; default `<dir>/<name>.cleaned.<ext>` (same format as the input). */
  output?: string;
  /** Removed rows; default `<dir>/<name>.removed.<ext>`. */
  removedOutput?: string;
  /** JSON summary; default `<dir>/<name>.summary.json`. */
  summaryOutput?: string;
  /** Records that could not be read (line, reason, text); default `<dir>/<name>.rejected_rows.csv`. */
  rejectedOutput?: string;
  /** The email column: header name (case-insensitive) or 1-based index; detected when absent. */
  column?: string;
  /** Risks whose rows go to the removed file instead of the cleaned one; default `['invalid']`. */
  remove?: RemovableRisk[];
  /** Default 50,000: a larger file is refused. */
  maxRows?: number;
  /** Rows per `pull()`; default 1,000. */
  pageSize?: number;
  /** Write nothing (the same as passing `dryRun` to every `write()`). */
  dryRun?: boolean;
  /**
   * Also write a file per category and flag (`<name>.<category>.csv` and `.xlsx`: safe, risky, invalid,
   * unknown, not_checked, role, disposable, catch_all), for those with rows; see `categoryOutput`.
   */
  split?: boolean;
}

export type FileFormat = 'csv' | 'xlsx';

export interface ResolvedOptions {
  input: string;
  format: FileFormat;
  /** Tab for .tsv; otherwise detected from the content. */
  forcedDelimiter?: string;
  output: string;
  removedOutput: string;
  summaryOutput: string;
  rejectedOutput: string;
  column?: string;
  remove: ReadonlySet<RemovableRisk>;
  maxRows: number;
  pageSize: number;
  dryRun: boolean;
  split: boolean;
  /** Per-category files are `<categoryStem>.<name><categoryTag>.<csv|xlsx>` (the tag marks a re-check's). */
  categoryStem: string;
  categoryTag: string;
}

const FORMATS: Record<string, { format: FileFormat; delimiter?: string }> = {
  '.csv': { format: 'csv' },
  '.txt': { format: 'csv' },
  '.tsv': { format: 'csv', delimiter: '\t' },
  '.xlsx': { format: 'xlsx' },
};

/** The options as a file run's stored settings: the platform module's `settings`, validated by the host. */
export const FileOptionsSchema = z.object({
  input: z.string().trim().min(1, 'is required'),
  output: z.string().trim().min(1).optional(),
  removedOutput: z.string().trim().min(1).optional(),
  summaryOutput: z.string().trim().min(1).optional(),
  rejectedOutput: z.string().trim().min(1).optional(),
  column: z.union([z.string().trim().min(1), z.number().int().positive().transform(String)]).optional(),
  remove: z.array(z.enum(REMOVABLE_RISKS)).optional(),
  maxRows: z.number().int().positive().optional(),
  pageSize: z.number().int().positive().max(100_000).optional(),
  dryRun: z.boolean().optional(),
  split: z.boolean().optional(),
});

/** Validates options (they may come from a stored connection's settings) and fills in the defaults. */
export function resolveOptions(raw: unknown): ResolvedOptions {
  const options = validSettings(FileOptionsSchema, raw, '');
  const ext = extname(options.input).toLowerCase();
  const kind = FORMATS[ext];
  if (!kind) {
    throw new InputError('input', `unsupported file type "${ext || '(none)'}": use .csv, .tsv, .txt or .xlsx (save .xls files as .xlsx)`);
  }
  const stem = join(dirname(options.input), basename(options.input, extname(options.input)));
  const resolved: ResolvedOptions = {
    input: options.input,
    format: kind.format,
    forcedDelimiter: kind.delimiter,
    output: options.output ?? `${stem}.cleaned${ext}`,
    removedOutput: options.removedOutput ?? `${stem}.removed${ext}`,
    summaryOutput: options.summaryOutput ?? `${stem}.summary.json`,
    rejectedOutput: options.rejectedOutput ?? `${stem}.rejected_rows.csv`,
    column: options.column,
    remove: new Set(options.remove ?? ['invalid']),
    maxRows: options.maxRows ?? DEFAULT_MAX_ROWS,
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    dryRun: options.dryRun ?? false,
    split: options.split ?? false,
    categoryStem: stem,
    categoryTag: '',
  };
  for (const field of ['output', 'removedOutput'] as const) {
    const target = extname(resolved[field]).toLowerCase();
    if (FORMATS[target]?.format !== resolved.format) {
      throw new InputError(field, `must have the input's format (${resolved.format === 'xlsx' ? '.xlsx' : '.csv, .tsv or .txt'})`);
    }
  }
  if (extname(resolved.rejectedOutput).toLowerCase() !== '.csv') throw new InputError('rejectedOutput', 'must be a .csv file');
  const paths = [resolved.input, resolved.output, resolved.removedOutput, resolved.summaryOutput, resolved.rejectedOutput];
  if (new Set(paths).size !== paths.length) throw new InputError('output', 'the input, cleaned, removed, rejected-rows and summary files must be five different paths');
  if (resolved.split && CATEGORY_FILES.some((name) => SPLIT_FORMATS.some((format) => paths.includes(categoryOutput(resolved, name, format))))) {
    throw new InputError('split', `a per-category file would have the path of the input or another output: name the outputs differently`);
  }
  return resolved;
}

/**
 * Where a re-check run writes: beside each output of the run it re-checks, with `.recheck-<runId>`
 * before the extension, so the files of the run it re-checks are never written over.
 */
export function recheckOutputs(options: ResolvedOptions, runId: string): ResolvedOptions {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(runId)) throw new InputError('runId', 'must be letters, digits, - or _ (it goes in file names)');
  const tagged = (path: string) => `${join(dirname(path), basename(path, extname(path)))}.recheck-${runId}${extname(path)}`;
  return {
    ...options,
    output: tagged(options.output),
    removedOutput: tagged(options.removedOutput),
    summaryOutput: tagged(options.summaryOutput),
    rejectedOutput: tagged(options.rejectedOutput),
    categoryTag: `.recheck-${runId}`,
  };
}

/**
 * The per-category files (`split`): the ledger's categories whose rows are written to the cleaned or
 * removed file (unreadable rows are the rejected-rows file; a file has no failed writes), then the flags.
 */
export const CATEGORY_FILES = ['safe', 'risky', 'invalid', 'unknown', 'not_checked', ...ROW_FLAGS] as const satisfies readonly (LedgerCategory | RowFlag)[];
export type CategoryFile = (typeof CATEGORY_FILES)[number];
export const SPLIT_FORMATS = ['csv', 'xlsx'] as const;
export type SplitFormat = (typeof SPLIT_FORMATS)[number];

/** Where a run writes the rows of one category (or flag) in one format: `contacts.invalid.xlsx`, `contacts.role.recheck-<run>.csv`. */
export function categoryOutput(options: Pick<ResolvedOptions, 'categoryStem' | 'categoryTag'>, name: CategoryFile, format: SplitFormat): string {
  return `${options.categoryStem}.${name}${options.categoryTag}.${format}`;
}
