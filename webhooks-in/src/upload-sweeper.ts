import type { ConnectionStore, Logger } from '@verify-hub/core';
import { uploadIdOfConnection } from './upload-store';

export const DEFAULT_ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_UPLOAD_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Abandoned previews are looked for at most this often (on a preview), so a busy hub does not list its uploads each time. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

export interface UploadSweeperOptions {
  connections?: ConnectionStore;
  discard(uploadId: string): Promise<void>;
  /** How long a previewed upload that was never started is kept (default 24 hours). */
  abandonedAfterMs?: number;
  /** How long an upload a run was started over (and its outputs) is kept (default 30 days; VERIFY_HUB_RETENTION_DAYS). */
  retentionMs?: number;
  now: () => number;
  logger?: Logger;
}

/**
 * A previewed upload never started is removed after a day, one a run was started over (its outputs
 * with it) after the retention period: the files hold a marketer's contacts. The sweep runs on an
 * upload, at most once an hour; it never fails the upload that triggered it.
 */
export function uploadSweeper(options: UploadSweeperOptions): (what: string) => Promise<void> {
  const abandonedAfterMs = options.abandonedAfterMs ?? DEFAULT_ABANDONED_AFTER_MS;
  const retentionMs = options.retentionMs ?? DEFAULT_UPLOAD_RETENTION_MS;
  const { now, connections } = options;
  let lastSweep = -Infinity;
  const sweep = async (): Promise<void> => {
    if (!connections || now() - lastSweep < Math.min(SWEEP_INTERVAL_MS, abandonedAfterMs)) return;
    lastSweep = now();
    for (const record of await connections.list()) {
      const uploadId = uploadIdOfConnection(record);
      const age = now() - Date.parse(record.createdAt);
      const keptFor = record.settings?.runId ? retentionMs : abandonedAfterMs;
      if (!uploadId || !(age >= keptFor)) continue;
      // One upload that cannot be removed must not refuse the new one: it is tried again at the next sweep.
      await options.discard(uploadId).catch((error: unknown) => options.logger?.warn({ uploadId, err: error }, 'could not remove an abandoned upload'));
    }
  };
  return (what) => sweep().catch((error: unknown) => options.logger?.warn({ err: error }, `could not look for ${what} uploads`));
}
