import type { Response } from 'express';
import type { Pricing } from '@verify-hub/core';
import type { RunRecord, RunService } from '@verify-hub/sync-jobs';
import { HttpError } from './http-errors';
import { runView } from './run-view';
import { inspectUpload } from './upload-inspection';
import type { UploadSettings, UploadStore } from './upload-store';
import type { FileRunLinks, FileRunStarted, UploadView } from './run-api-types';

/** The choices a run over an upload is started with (the one-shot form fields, or the dashboard's start body). */
export interface StartChoices {
  column?: string;
  removeRisky?: boolean;
  dryRun?: boolean;
  maxCredits?: number;
  freshnessDays?: number;
}

export interface StartedUploadRun {
  run: RunRecord;
  upload: UploadView;
}

/** Where a file run's outputs are downloaded (a re-check run has its own). */
export const fileLinks = (runId: string): FileRunLinks => ({
  run: `/api/runs/${runId}`,
  cleaned: `/api/runs/${runId}/files/cleaned`,
  removed: `/api/runs/${runId}/files/removed`,
  rejected: `/api/runs/${runId}/files/rejected`,
  summary: `/api/runs/${runId}/files/summary`,
  downloads: `/api/runs/${runId}/downloads`,
});

/**
 * Starts the one run over a kept upload, with the chosen column and rows to remove. A second start
 * (a double click, two tabs) is refused: the run's outputs are written beside the upload.
 */
export function uploadRunStarter(runs: RunService, uploads: UploadStore): (uploadId: string, choices: StartChoices) => Promise<StartedUploadRun> {
  const starting = new Set<string>();
  return async (uploadId, choices) => {
    if (starting.has(uploadId)) throw new HttpError(409, 'ALREADY_STARTED', 'this file is already being cleaned');
    starting.add(uploadId);
    try {
      const { record, settings: kept } = await uploads.kept(uploadId);
      if (kept.runId) throw new HttpError(409, 'ALREADY_STARTED', `this file is already being cleaned (run ${kept.runId}): upload it again for another run`);
      const settings: UploadSettings = { ...kept, column: choices.column ?? kept.column, remove: choices.removeRisky ? ['invalid', 'risky'] : ['invalid'] };
      const inspection = await inspectUpload(settings);
      await uploads.save(record, settings);
      const run = await runs.start({
        platform: 'file',
        connectionId: record.id,
        scope: `file:${settings.input}`,
        // The run is named for people by the file's name as uploaded.
        name: record.label,
        options: { dryRun: choices.dryRun ? true : undefined, maxCredits: choices.maxCredits, freshnessDays: choices.freshnessDays },
        // The preview's row count: the run's progress total from its first reading.
        expectedTotal: inspection.rowCount,
      });
      await uploads.save(record, { ...settings, runId: run.id });
      return { run, upload: await uploads.view(uploadId, record, inspection) };
    } finally {
      starting.delete(uploadId);
    }
  };
}

/** 202 with the run, the upload and where its files will be. */
export function answerStarted(res: Response, { run, upload }: StartedUploadRun, pricing: Pricing | undefined): void {
  const answer: FileRunStarted = { run: runView(run, { pricing }), upload, links: fileLinks(run.id) };
  res.status(202).location(`/api/runs/${run.id}`).json(answer);
}
