import { Router } from 'express';
import { z } from 'zod';
import type { ConnectionStore, Logger, Pricing } from '@verify-hub/core';
import type { ConnectionOperations, RunService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunOptionsSchema, UploadFields } from '../schemas';
import { receivedFile, uploadReceiver } from '../upload-receiver';
import { estimateUpload, inspectUpload } from '../upload-inspection';
import { connectionIdOf, UploadIdParams, UploadStore, type UploadSettings } from '../upload-store';
import { uploadSweeper } from '../upload-sweeper';
import { answerStarted, uploadRunStarter } from '../upload-run-start';
import { fileRunDownloadRoutes } from './file-run-downloads';
import type { FilePreview } from '../run-api-types';

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

const PreviewFields = UploadFields.pick({ column: true });
const EstimateQuery = z.strictObject({ column: z.string().min(1).max(200).optional() });
const StartUploadBody = z.strictObject({
  column: z.string().min(1).max(200).optional(),
  removeRisky: z.boolean().optional(),
  dryRun: z.boolean().optional(),
  maxCredits: RunOptionsSchema.shape.maxCredits,
  freshnessDays: RunOptionsSchema.shape.freshnessDays,
});

/**
 * The bulk-file feature. One code path: an upload is received, inspected and saved as connection
 * `file-<uploadId>` (upload-store.ts), then a run is started over it. `POST /files` does it all at
 * once; the dashboard previews first (`POST /files/preview`, with a credit estimate), then starts
 * (`POST /files/:uploadId/start`). The outputs are downloaded once the run completed (file-run-downloads.ts).
 */
export function fileRoutes(options: FileRoutesOptions): Router {
  const router = Router();
  const now = options.now ?? Date.now;
  const receiveFile = uploadReceiver(options.uploadDir, options.maxBytes);
  const uploads = new UploadStore({ uploadDir: options.uploadDir, connections: options.connections, maxRows: options.maxRows, now });
  // Housekeeping must not cost the user the upload they just made: the sweep never throws.
  const sweep = uploadSweeper({ ...options, discard: (uploadId) => uploads.discard(uploadId), now });
  const startRun = uploadRunStarter(options.runs, uploads);
  const estimate = (uploadId: string, settings: UploadSettings, inspection: Awaited<ReturnType<typeof inspectUpload>>) => estimateUpload(options, connectionIdOf(uploadId), settings, inspection);

  // One-shot: upload and start at once.
  router.post('/files', receiveFile, async (req, res) => {
    const { file, uploadId } = receivedFile(req);
    await sweep('expired');
    try {
      uploads.connections();
      const fields = parseInput(UploadFields, req.body ?? {}, 'form');
      await uploads.keep(file, uploadId, fields.column);
      const result = await startRun(uploadId, { removeRisky: fields.removeRisky === 'true', dryRun: fields.dryRun === 'true', maxCredits: fields.maxCredits, freshnessDays: fields.freshnessDays });
      answerStarted(res, result, options.pricing);
    } catch (error) {
      await uploads.discard(uploadId);
      throw error;
    }
  });

  // The dashboard: upload, see the columns, a sample and the credit estimate; nothing starts yet.
  router.post('/files/preview', receiveFile, async (req, res) => {
    const { file, uploadId } = receivedFile(req);
    await sweep('abandoned');
    try {
      uploads.connections();
      const fields = parseInput(PreviewFields, req.body ?? {}, 'form');
      const { record, inspection } = await uploads.keep(file, uploadId, fields.column);
      const view = await uploads.view(uploadId, record, inspection);
      const preview: FilePreview = { upload: { ...view, sample: inspection.sample }, estimate: await estimate(uploadId, record.settings as unknown as UploadSettings, inspection) };
      res.status(201).json(preview);
    } catch (error) {
      await uploads.discard(uploadId);
      throw error;
    }
  });

  // Another email column: it is kept for the start, and the estimate is for it.
  router.get('/files/:uploadId/estimate', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const { column } = parseInput(EstimateQuery, req.query, 'query');
    const { record, settings } = await uploads.kept(uploadId);
    if (column !== undefined && column !== settings.column) {
      if (settings.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is already being cleaned (run ${settings.runId})`);
      const chosen = { ...settings, column };
      const inspection = await inspectUpload(chosen);
      await uploads.save(record, chosen);
      return void res.json(await estimate(uploadId, chosen, inspection));
    }
    res.json(await estimate(uploadId, settings, await inspectUpload(settings)));
  });

  // A preview the user does not go on with (another file chosen): removed now rather than after a day.
  router.delete('/files/:uploadId', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const { settings } = await uploads.kept(uploadId);
    if (settings.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is being cleaned or was cleaned (run ${settings.runId}): its files go with the run`);
    await uploads.discard(uploadId);
    res.status(204).end();
  });

  router.post('/files/:uploadId/start', async (req, res) => {
    const { uploadId } = parseInput(UploadIdParams, req.params, 'params');
    const body = parseInput(StartUploadBody, req.body ?? {}, 'body');
    answerStarted(res, await startRun(uploadId, body), options.pricing);
  });

  router.use(fileRunDownloadRoutes(options));
  return router;
}
