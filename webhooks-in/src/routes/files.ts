import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { InputError, type ConnectionStore } from '@verify-hub/core';
import { FileConnector, type FileInspection } from '@verify-hub/connector-file';
import type { RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunIdParams, UploadFields } from '../schemas';
import { runView } from '../run-view';
import { outputPath, uploadedInput, type OutputKind } from '../file-outputs';

export const UPLOAD_EXTENSIONS = ['.csv', '.tsv', '.txt', '.xlsx'];
export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;

export interface FileRoutesOptions {
  runs: RunService;
  uploadDir: string;
  maxBytes?: number;
  maxRows?: number;
  /** Where a file run's settings (email column, rows to remove) are stored: the file connector reads them. */
  connections?: ConnectionStore;
}

/** A file name safe to keep on disk: the original's letters, digits, dot, dash and underscore, extension lower-cased. */
function safeName(original: string): string {
  const ext = extname(original).toLowerCase();
  const stem = basename(original, extname(original)).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'upload';
  return `${stem}${ext}`;
}

/** The file connector's own reading of the file; its refusals become 400s naming the file. */
async function inspect(settings: { input: string; column?: string; maxRows?: number }): Promise<FileInspection> {
  try {
    return await new FileConnector(settings).inspect();
  } catch (error) {
    if (error instanceof InputError) throw new HttpError(400, 'INVALID_INPUT', `file: ${error.message}`, 'file');
    throw new HttpError(400, 'INVALID_INPUT', 'file: cannot be read as CSV or Excel (.xlsx)', 'file');
  }
}

const OutputParams = z.object({ kind: z.enum(['cleaned', 'removed', 'summary']) });

/**
 * The bulk-file feature: upload a CSV/Excel file (it becomes a `file` run over the saved copy),
 * then download the cleaned file, the removed rows and the summary once the run completed.
 */
export function fileRoutes(options: FileRoutesOptions): Router {
  const router = Router();
  const upload = multer({
    storage: multer.diskStorage({
      destination: (req, _file, done) => {
        const id = randomUUID();
        (req as { uploadId?: string }).uploadId = id;
        const dir = join(options.uploadDir, id);
        try {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          done(null, dir);
        } catch (error) {
          done(error as Error, dir);
        }
      },
      filename: (_req, file, done) => done(null, safeName(file.originalname)),
    }),
    limits: { fileSize: options.maxBytes ?? DEFAULT_UPLOAD_MAX_BYTES, files: 1, fields: 10, fieldSize: 1024 },
    fileFilter: (_req, file, done) => {
      if (file.fieldname !== 'file') return done(new HttpError(400, 'INVALID_INPUT', `${file.fieldname}: send the file in the form field "file"`, 'file'));
      const ext = extname(file.originalname).toLowerCase();
      if (!UPLOAD_EXTENSIONS.includes(ext)) {
        return done(new HttpError(400, 'INVALID_INPUT', `file: unsupported type "${ext || '(none)'}"; send .csv, .tsv, .txt or .xlsx`, 'file'));
      }
      done(null, true);
    },
  });

  // A refused upload (type, size, field) leaves nothing behind: multer removes the partial file, this the folder.
  const receiveFile: RequestHandler = (req, res, next) => {
    upload.single('file')(req, res, (error?: unknown) => {
      const uploadId = (req as { uploadId?: string }).uploadId;
      if (!error || !uploadId) return next(error);
      rm(join(options.uploadDir, uploadId), { recursive: true, force: true }).then(() => next(error), () => next(error));
    });
  };

  router.post('/files', receiveFile, async (req, res) => {
    const file = req.file;
    if (!file) throw new HttpError(400, 'INVALID_INPUT', 'file: required (multipart/form-data, field "file")', 'file');
    const uploadId = (req as { uploadId?: string }).uploadId!;
    try {
      if (!options.connections) throw new HttpError(503, 'UPLOADS_DISABLED', 'file uploads need the connection store: set HUB_SECRET_KEY');
      const fields = parseInput(UploadFields, req.body ?? {}, 'form');
      const remove: ('invalid' | 'risky')[] = fields.removeRisky === 'true' ? ['invalid', 'risky'] : ['invalid'];
      const settings = { input: file.path, column: fields.column, remove, maxRows: options.maxRows };
      // Read the file once now, so a file over the row limit, without an email column or unreadable is
      // refused here with its reason, not after the run started.
      const inspection = await inspect(settings);
      const connectionId = `file-${uploadId}`;
      await options.connections.save({ id: connectionId, platform: 'file', label: file.originalname.slice(0, 200), createdAt: new Date().toISOString(), credentials: {}, settings });
      const run = await options.runs.start({
        platform: 'file',
        connectionId,
        scope: `file:${file.path}`,
        options: { dryRun: fields.dryRun === 'true' ? true : undefined, maxCredits: fields.maxCredits, freshnessDays: fields.freshnessDays },
      });
      res
        .status(202)
        .location(`/api/runs/${run.id}`)
        .json({
          run: runView(run),
          upload: { id: uploadId, name: file.originalname, bytes: file.size, rows: inspection.rowCount, columns: inspection.columns, emailColumn: inspection.emailColumn },
          links: { run: `/api/runs/${run.id}`, cleaned: `/api/runs/${run.id}/files/cleaned`, removed: `/api/runs/${run.id}/files/removed`, summary: `/api/runs/${run.id}/files/summary` },
        });
    } catch (error) {
      await rm(join(options.uploadDir, uploadId), { recursive: true, force: true });
      throw error;
    }
  });

  router.get('/runs/:id/files/:kind', async (req, res) => {
    const { id } = parseInput(RunIdParams, { id: req.params.id }, 'params');
    const { kind } = parseInput(OutputParams, { kind: req.params.kind }, 'params');
    const run = await options.runs.get(id);
    if (!run) throw new HttpError(404, 'NOT_FOUND', `run ${id} not found`);
    const input = uploadedInput(run, options.uploadDir);
    if (!input) throw new HttpError(404, 'NOT_FOUND', `run ${id} is not an uploaded-file run`);
    if (run.status !== 'completed') throw new HttpError(409, 'NOT_READY', `run ${id} is ${run.status}; its files are ready when it completes`);
    const path = outputPath(input, kind as OutputKind);
    await access(path).catch(() => {
      throw new HttpError(404, 'NOT_FOUND', `run ${id} has no ${kind} file`);
    });
    res.download(path, basename(path), { dotfiles: 'allow' });
  });

  return router;
}
