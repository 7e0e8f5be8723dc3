import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { z } from 'zod';
import { CATEGORY_WORDS, FLAG_WORDS, ROW_FLAGS, type Ledger, type RowFlag } from '@verify-hub/core';
import { CATEGORY_FILES, SPLIT_FORMATS, type CategoryFile, type FileSummary, type SplitFormat } from '@verify-hub/connector-file';
import type { RunRecord } from '@verify-hub/sync-jobs';
import { categoryPath, outputPath } from './file-outputs';
import { HttpError } from './http-errors';
import type { CategoryDownload, DownloadCategory, RunDownloads } from './run-api-types';

export type { DownloadCategory } from './run-api-types';

/** What `GET /runs/:id/download?category=` serves: the per-category files, and the rejected-rows file as `unreadable`. */
export const DOWNLOAD_CATEGORIES = [...CATEGORY_FILES, 'unreadable'] as const satisfies readonly DownloadCategory[];

export const DownloadQuery = z.strictObject({
  category: z.enum(DOWNLOAD_CATEGORIES, { error: `must be one of ${DOWNLOAD_CATEGORIES.join(', ')}` }),
  format: z.enum(SPLIT_FORMATS, { error: `must be ${SPLIT_FORMATS.join(' or ')}` }).default('csv'),
});

export const downloadHref = (runId: string, category: DownloadCategory, format: SplitFormat) => `/api/runs/${encodeURIComponent(runId)}/download?category=${category}&format=${format}`;

/** Where a file run's list of one category (or flag) is, in one format: the per-category file, or the rejected-rows file for `unreadable` (CSV only). */
export function downloadPath(input: string, category: DownloadCategory, format: SplitFormat, run?: RunRecord): string {
  return category === 'unreadable' ? outputPath(input, 'rejected', run) : categoryPath(input, category, format, run);
}

/** `contacts-invalid.xlsx`, `contacts-catch-all.csv`: the upload's name and the list's. */
export function downloadFileName(input: string, category: DownloadCategory, format: SplitFormat): string {
  return `${basename(input, extname(input))}-${category.replace(/_/g, '-')}.${format}`;
}

/**
 * A finished file run's downloads with their counts, read from its summary.json: the counts the files
 * were written with (the ledger's, which the run page and the CLI show too), so a link's count is its
 * file's number of rows.
 */
export async function downloadsOf(run: RunRecord, input: string): Promise<RunDownloads> {
  const text = await readFile(outputPath(input, 'summary', run), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    throw new HttpError(404, 'NOT_FOUND', run.options.dryRun ? `run ${run.id} was a dry run: it wrote no files` : `run ${run.id} has no files`);
  });
  const summary = JSON.parse(text) as Pick<FileSummary, 'rows' | 'removed' | 'categoryOutputs'> & Partial<Pick<FileSummary, 'removedRisks'>> & { ledger: Ledger; flags?: Record<RowFlag, number> };
  const files = summary.categoryOutputs ?? {};
  const entry = (category: DownloadCategory, words: { label: string; explanation: string }, count: number): CategoryDownload => {
    const item: CategoryDownload = { category, ...words, count };
    if (count > 0 && (category === 'unreadable' || files[category as CategoryFile])) {
      item.csv = downloadHref(run.id, category, 'csv');
      if (category !== 'unreadable') item.xlsx = downloadHref(run.id, category, 'xlsx');
    }
    return item;
  };
  const runFile = (kind: string) => `/api/runs/${encodeURIComponent(run.id)}/files/${kind}`;
  return {
    cleaned: { count: summary.rows - summary.removed, href: runFile('cleaned') },
    removed: { count: summary.removed, href: runFile('removed'), risks: summary.removedRisks },
    summary: { href: runFile('summary') },
    categories: (['safe', 'risky', 'invalid', 'unknown', 'not_checked', 'unreadable'] as const).map((c) => entry(c, CATEGORY_WORDS[c], summary.ledger[c] ?? 0)),
    flags: ROW_FLAGS.map((f) => entry(f, FLAG_WORDS[f], summary.flags?.[f] ?? 0)),
  };
}
