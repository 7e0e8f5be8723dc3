import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import { Router } from 'express';
import { z } from 'zod';
import type { RunRecord, RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunIdParams } from '../schemas';
import { OUTPUT_KINDS, outputPath, uploadOfRun } from '../file-outputs';
import { DownloadQuery, downloadFileName, downloadPath, downloadsOf } from '../file-downloads';

const OutputParams = z.object({ kind: z.enum(OUTPUT_KINDS) });

/** The files of a completed run over an upload: its outputs, and each category's (or flag's) rows. */
export function fileRunDownloadRoutes(options: { runs: RunService; uploadDir: string }): Router {
  const router = Router();

  /** A completed run over an upload and the upload's path: 404 for another run, 409 while it is not completed. */
  const completedFileRun = async (rawId: unknown): Promise<{ run: RunRecord; input: string }> => {
    const { id } = parseInput(RunIdParams, { id: rawId }, 'params');
    const run = await options.runs.get(id);
    if (!run) throw new HttpError(404, 'NOT_FOUND', `run ${id} not found`);
    const input = await uploadOfRun(run, options.uploadDir, (sourceId) => options.runs.get(sourceId));
    if (!input) throw new HttpError(404, 'NOT_FOUND', `run ${id} is not an uploaded-file run`);
    if (run.status !== 'completed') throw new HttpError(409, 'NOT_READY', `run ${id} is ${run.status}; its files are ready when it completes`);
    return { run, input };
  };

  router.get('/runs/:id/files/:kind', async (req, res) => {
    const { kind } = parseInput(OutputParams, { kind: req.params.kind }, 'params');
    const { run, input } = await completedFileRun(req.params.id);
    const path = outputPath(input, kind, run);
    await access(path).catch(() => {
      throw new HttpError(404, 'NOT_FOUND', `run ${run.id} has no ${kind} file`);
    });
    res.download(path, basename(path), { dotfiles: 'allow' });
  });

  // The run page's downloads: each category and flag with its count and links.
  router.get('/runs/:id/downloads', async (req, res) => {
    const { run, input } = await completedFileRun(req.params.id);
    res.json(await downloadsOf(run, input));
  });

  // One category's (or flag's) rows, as CSV or .xlsx: the file the connector wrote with the run.
  router.get('/runs/:id/download', async (req, res) => {
    const { category, format } = parseInput(DownloadQuery, req.query, 'query');
    if (category === 'unreadable' && format !== 'csv') throw new HttpError(400, 'INVALID_INPUT', 'query.format: the rows that could not be read are a CSV file only (each record as its text in the file): use csv', 'query.format');
    const { run, input } = await completedFileRun(req.params.id);
    const path = downloadPath(input, category, format, run);
    await access(path).catch(() => {
      throw new HttpError(404, 'NOT_FOUND', `run ${run.id} has no ${category.replace(/_/g, ' ')} rows to download`);
    });
    res.download(path, downloadFileName(input, category, format), { dotfiles: 'allow' });
  });

  return router;
}
