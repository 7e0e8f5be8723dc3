import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { access, rm, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import { Router, type RequestHandler } from 'express';
import multer from 'multer';
import { z } from 'zod';
import { estimateView, InputError, type ConnectionRecord, type ConnectionStore, type CostView, type Logger, type Pricing } from '@verify-hub/core';
import { DEFAULT_MAX_ROWS, FileConnector, type FileInspection, type RemovableRisk } from '@verify-hub/connector-file';
import type { ConnectionOperations, RunEstimate, RunRecord, RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunIdParams, RunOptionsSchema, UploadFields } from '../schemas';
import { runView } from '../run-view';
import { OUTPUT_KINDS, outputPath, uploadOfRun } from '../file-outputs';
import { DownloadQuery, downloadFileName, downloadPath, downloadsOf } from '../file-downloads';

export const UPLOAD_EXTENSIONS = ['.csv', '.tsv', '.txt', '.xlsx'];
export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;

export interface FileRoutesOptions {
  runs: RunService;
  uploadDir: string;
  maxBytes?: number;
  maxRows?: number;
  /** Where a file run's settings (email column, rows to remove) are stored: the file connector reads them. */
  connections?: ConnectionStore;
  /** The credit estimate of a previewed upload. */
  operations?: ConnectionOperations;
  /** How long a previewed upload that was never started is kept (default 24 hours). */
  abandonedAfterMs?: number;
  /** How long an upload a run was started over (and its outputs) is kept (default 30 days; VERIFY_HUB_RETENTION_DAYS). */
  retentionMs?: number;
  now?: () => number;
  logger?: Logger;
  /** The price of 1,000 credits (VERIFY_HUB_PRICE_PER_1000): estimates show money beside credits. */
  pricing?: Pricing;
}

/** The wrong-column guard's answer: under half of the email column's first values look like addresses. */
export interface ColumnWarning {
  column: string;
  percent: number;
  suggestedColumn?: string;
  message: string;
}

/** An upload's estimate as answered: the pipeline's counts, the ceiling in credits and money, and the wrong-column warning. */
export type FileEstimate = RunEstimate & { cost: CostView; columnWarning?: ColumnWarning };

export const DEFAULT_ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_UPLOAD_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Abandoned previews are looked for at most this often (on a preview), so a busy hub does not list its uploads each time. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** What an upload's connection (`file-<uploadId>`) holds: the file connector's options, plus the run started from it. */
interface UploadSettings {
  input: string;
  column?: string;
  remove: RemovableRisk[];
  maxRows?: number;
  /** Set once a run was started over the upload: a second one would overwrite its outputs. */
  runId?: string;
  /** The connector also writes a file per category and flag (the run page's downloads). */
  split?: boolean;
}

/** The choices a run over an upload is started with (the one-shot form fields, or the dashboard's start body). */
interface StartChoices {
  column?: string;
  removeRisky?: boolean;
  dryRun?: boolean;
  maxCredits?: number;
  freshnessDays?: number;
}

const UploadIdParams = z.object({ uploadId: z.uuid('must be an upload id') });
const PreviewFields = UploadFields.pick({ column: true });
const EstimateQuery = z.strictObject({ column: z.string().min(1).max(200).optional() });
const StartUploadBody = z.strictObject({
  column: z.string().min(1).max(200).optional(),
  removeRisky: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  maxCredits: RunOptionsSchema.shape.maxCredits,
  freshnessDays: RunOptionsSchema.shape.freshnessDays,
});

/** A file name safe to keep on disk: the original's letters, digits, dot, dash and underscore, extension lower-cased. */
function safeName(original: string): string {
  const ext = extname(original).toLowerCase();
  const stem = basename(original, extname(original)).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'upload';
  return `${stem}${ext}`;
}

const FILE_CONNECTION_PREFIX = 'file-';
const connectionIdOf = (uploadId: string) => `${FILE_CONNECTION_PREFIX}${uploadId}`;

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * The file connector's own reading of the file. Its refusals become 400s in words a marketer acts on,
 * naming `file` (or `column` for a column the user picked); server paths and CLI flags stay out.
 */
async function inspect(settings: UploadSettings): Promise<FileInspection> {
  try {
    return await new FileConnector(settings).inspect();
  } catch (error) {
    throw refusalOf(error, settings);
  }
}

function refusalOf(error: unknown, settings: UploadSettings): HttpError {
  const field = error instanceof InputError ? error.field : undefined;
  if (field === 'maxRows') {
    const limit = (settings.maxRows ?? DEFAULT_MAX_ROWS).toLocaleString('en-US');
    return new HttpError(400, 'INVALID_INPUT', `file: has more than ${limit} rows, the most one file may have: split it into smaller files and upload each`, 'file');
  }
  if (field === 'column' && settings.column !== undefined) {
    return new HttpError(400, 'INVALID_INPUT', `column: this file has no column "${settings.column}": pick one of its columns`, 'column');
  }
  if (field === 'column') {
    return new HttpError(400, 'INVALID_INPUT', 'file: no column of email addresses was found: give the email column a header such as "email", or pick it', 'file');
  }
  if (error instanceof InputError && /has no rows$/.test(error.message)) return new HttpError(400, 'INVALID_INPUT', 'file: the file is empty', 'file');
  return new HttpError(400, 'INVALID_INPUT', 'file: cannot be read as CSV or Excel (.xlsx): save it as CSV (UTF-8) or .xlsx and upload it again', 'file');
}

/** Where a file run's outputs are downloaded (a re-check run has its own). */
export const fileLinks = (runId: string) => ({
  run: `/api/runs/${runId}`,
  cleaned: `/api/runs/${runId}/files/cleaned`,
  removed: `/api/runs/${runId}/files/removed`,
  rejected: `/api/runs/${runId}/files/rejected`,
  summary: `/api/runs/${runId}/files/summary`,
  downloads: `/api/runs/${runId}/downloads`,
});

/**
 * The multipart parser's own complaints (`Unexpected end of form`, `Malformed part header`, no
 * boundary) are the sender's broken body: 400 naming `file`. Our refusals and multer's limits keep
 * their answer; a disk error (it has a syscall) stays a server error.
 */
function malformedUpload(error: unknown): unknown {
  if (error instanceof HttpError || !(error instanceof Error)) return error;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall || (typeof code === 'string' && code.startsWith('LIMIT_'))) return error;
  return new HttpError(400, 'INVALID_INPUT', 'file: the upload is not a well-formed multipart/form-data body: send the file in the form field "file"', 'file');
}

const OutputParams = z.object({ kind: z.enum(OUTPUT_KINDS) });

/**
 * The bulk-file feature. One code path: an upload is received, inspected and saved as connection
 * `file-<uploadId>`, then a run is started over it. `POST /files` does it all at once;
 * the dashboard previews first (`POST /files/preview`, with a credit estimate), then starts
 * (`POST /files/:uploadId/start`). The outputs are downloaded once the run completed.
 */
export function fileRoutes(options: FileRoutesOptions): Router {
  const router = Router();
  const starting = new Set<string>();
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
        return done(new HttpError(400, 'INVALID_INPUT', `file: unsupported type "${ext || '(none)'}": upload a CSV file (.csv, .tsv, .txt) or an Excel workbook (.xlsx)`, 'file'));
      }
      done(null, true);
    },
  });

  const store = (): ConnectionStore => {
    if (!options.connections) throw new HttpError(503, 'UPLOADS_DISABLED', 'file uploads need the connection store: set HUB_SECRET_KEY');
    return options.connections;
  };

  const discard = async (uploadId: string) => {
    await rm(join(options.uploadDir, uploadId), { recursive: true, force: true });
    await options.connections?.delete(connectionIdOf(uploadId));
  };

  /**
   * A previewed upload never started is removed after a day, one a run was started over (its outputs
   * with it) after the retention period: the files hold a marketer's contacts.
   */
  const abandonedAfterMs = options.abandonedAfterMs ?? DEFAULT_ABANDONED_AFTER_MS;
  const retentionMs = options.retentionMs ?? DEFAULT_UPLOAD_RETENTION_MS;
  const now = options.now ?? Date.now;
  let lastSweep = -Infinity;
  const sweepAbandoned = async (): Promise<void> => {
    if (!options.connections || now() - lastSweep < Math.min(SWEEP_INTERVAL_MS, abandonedAfterMs)) return;
    lastSweep = now();
    for (const record of await options.connections.list()) {
      const uploadId = record.platform === 'file' && record.id.startsWith(FILE_CONNECTION_PREFIX) ? record.id.slice(FILE_CONNECTION_PREFIX.length) : undefined;
      const age = now() - Date.parse(record.createdAt);
      const keptFor = record.settings?.runId ? retentionMs : abandonedAfterMs;
      if (!uploadId || !(age >= keptFor) || !UploadIdParams.safeParse({ uploadId }).success) continue;
      // One upload that cannot be removed must not refuse the new one: it is tried again at the next sweep.
      await discard(uploadId).catch((error: unknown) => options.logger?.warn({ uploadId, reason: (error as Error).message }, 'could not remove an abandoned upload'));
    }
  };

  // A refused upload (type, size, field, a body that is not multipart) leaves nothing behind: multer
  // removes the partial file, this the folder.
  const receiveFile: RequestHandler = (req, res, next) => {
    upload.single('file')(req, res, (raw?: unknown) => {
      const error = raw === undefined ? undefined : malformedUpload(raw);
      const uploadId = (req as { uploadId?: string }).uploadId;
      if (!error || !uploadId) return next(error);
      rm(join(options.uploadDir, uploadId), { recursive: true, force: true }).then(() => next(error), () => next(error));
    });
  };

  /** The received file, read once now: a file over the row limit, without an email column or unreadable is refused here, before any run. */
  const keepUpload = async (file: Express.Multer.File, uploadId: string, column: string | undefined): Promise<{ record: ConnectionRecord; inspection: FileInspection }> => {
    const settings: UploadSettings = { input: file.path, column, remove: ['invalid'], maxRows: options.maxRows, split: true };
    const inspection = await inspect(settings);
    const record: ConnectionRecord = { id: connectionIdOf(uploadId), platform: 'file', label: file.originalname.slice(0, 200), createdAt: new Date(now()).toISOString(), credentials: {}, settings: { ...settings } };
    await store().save(record);
    return { record, inspection };
  };

  /** A kept upload by id (404 when there is none). */
  const keptUpload = async (uploadId: string): Promise<{ record: ConnectionRecord; settings: UploadSettings }> => {
    const record = await store().get(connectionIdOf(uploadId));
    const input = record?.settings?.input;
    // Only a file inside the upload folder is ever read (or its outputs written) from here.
    if (!record || record.platform !== 'file' || typeof input !== 'string' || !isInside(options.uploadDir, input)) throw new HttpError(404, 'NOT_FOUND', `upload ${uploadId} not found`);
    return { record, settings: record.settings as unknown as UploadSettings };
  };

  const uploadView = async (uploadId: string, record: ConnectionRecord, inspection: FileInspection) => ({
    id: uploadId,
    name: record.label,
    bytes: (await stat(String(record.settings!.input))).size,
    rows: inspection.rowCount,
    columns: inspection.columns,
    emailColumn: inspection.emailColumn,
  });

  const estimate = async (uploadId: string, settings: UploadSettings, inspection: FileInspection): Promise<FileEstimate> => {
    if (!options.operations) throw new HttpError(503, 'ESTIMATES_DISABLED', 'credit estimates are not available in this deployment');
    const counts = await options.operations.estimate({ platform: 'file', connectionId: connectionIdOf(uploadId), scope: `file:${settings.input}` });
    const answer: FileEstimate = { ...counts, cost: estimateView(counts.estimatedCredits, options.pricing) };
    const check = inspection.emailCheck;
    if (check.warning) answer.columnWarning = { column: inspection.emailColumn, percent: check.percent, ...(check.suggestedColumn ? { suggestedColumn: check.suggestedColumn } : {}), message: check.warning };
    return answer;
  };

  /** Starts the one run over a kept upload, with the chosen column and rows to remove. */
  const startRun = async (uploadId: string, choices: StartChoices): Promise<{ run: RunRecord; upload: Awaited<ReturnType<typeof uploadView>> }> => {
    if (starting.has(uploadId)) throw new HttpError(409, 'ALREADY_STARTED', 'this file is already being cleaned');
    starting.add(uploadId);
    try {
      const { record, settings: kept } = await keptUpload(uploadId);
      if (kept.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is already being cleaned (run ${kept.runId}): upload it again for another run`);
      const settings: UploadSettings = { ...kept, column: choices.column ?? kept.column, remove: choices.removeRisky ? ['invalid', 'risky'] : ['invalid'] };
      const inspection = await inspect(settings);
      await store().save({ ...record, settings: { ...settings } });
      const run = await options.runs.start({
        platform: 'file',
        connectionId: record.id,
        scope: `file:${settings.input}`,
        // The run is named for people by the file's name as uploaded.
        name: record.label,
        options: { dryRun: choices.dryRun ? true : undefined, maxCredits: choices.maxCredits, freshnessDays: choices.freshnessDays },
        // The preview's row count: the run's progress total from its first reading.
        expectedTotal: inspection.rowCount,
      });
      await store().save({ ...record, settings: { ...settings, runId: run.id } });
      return { run, upload: await uploadView(uploadId, record, inspection) };
    } finally {
      starting.delete(uploadId);
    }
  };

  const started = (res: Parameters<RequestHandler>[1], result: Awaited<ReturnType<typeof startRun>>) => {
    const { run } = result;
    res
      .status(202)
      .location(`/api/runs/${run.id}`)
      .json({
        run: runView(run, { pricing: options.pricing }),
        upload: result.upload,
        links: fileLinks(run.id),
      });
  };

  const requireFile = (req: Parameters<RequestHandler>[0]) => {
    if (!req.file) throw new HttpError(400, 'INVALID_INPUT', 'file: required (multipart/form-data, field "file")', 'file');
    return { file: req.file, uploadId: (req as { uploadId?: string }).uploadId! };
  };

  // One-shot: upload and start at once.
  router.post('/files', receiveFile, async (req, res) => {
    const { file, uploadId } = requireFile(req);
    await sweepAbandoned().catch((error: unknown) => options.logger?.warn({ reason: (error as Error).message }, 'could not look for expired uploads'));
    try {
      store();
      const fields = parseInput(UploadFields, req.body ?? {}, 'form');
      await keepUpload(file, uploadId, fields.column);
      const result = await startRun(uploadId, { removeRisky: fields.removeRisky === 'true', dryRun: fields.dryRun === 'true', maxCredits: fields.maxCredits, freshnessDays: fields.freshnessDays });
      started(res, result);
    } catch (error) {
      await discard(uploadId);
      throw error;
    }
  });

  // The dashboard: upload, see the columns, a sample and the credit estimate; nothing starts yet.
  router.post('/files/preview', receiveFile, async (req, res) => {
    const { file, uploadId } = requireFile(req);
    // Housekeeping must not cost the user the upload they just made.
    await sweepAbandoned().catch((error: unknown) => options.logger?.warn({ reason: (error as Error).message }, 'could not look for abandoned uploads'));
    try {
      store();
      const fields = parseInput(PreviewFields, req.body ?? {}, 'form');
      const { record, inspection } = await keepUpload(file, uploadId, fields.column);
      const view = await uploadView(uploadId, record, inspection);
      res.status(201).json({ upload: { ...view, sample: inspection.sample }, estimate: await estimate(uploadId, record.settings as unknown as UploadSettings, inspection) });
    } catch (error) {
      await discard(uploadId);
      throw error;
    }
  });

  // Another email column: it is kept for the start, and the estimate is for it.
  router.get('/files/:uploadId/estimate', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const { column } = parseInput(EstimateQuery, req.query, 'query');
    const { record, settings } = await keptUpload(uploadId);
    if (column !== undefined && column !== settings.column) {
      if (settings.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is already being cleaned (run ${settings.runId})`);
      const chosen = { ...settings, column };
      const inspection = await inspect(chosen);
      await store().save({ ...record, settings: { ...chosen } });
      return void res.json(await estimate(uploadId, chosen, inspection));
    }
    res.json(await estimate(uploadId, settings, await inspect(settings)));
  });

  // A preview the user does not go on with (another file chosen): removed now rather than after a day.
  router.delete('/files/:uploadId', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const { settings } = await keptUpload(uploadId);
    if (settings.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is being cleaned or was cleaned (run ${settings.runId}): its files go with the run`);
    await discard(uploadId);
    res.status(204).end();
  });

  router.post('/files/:uploadId/start', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const body = parseInput(StartUploadBody, req.body ?? {}, 'body');
    started(res, await startRun(uploadId, body));
  });

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
