import { rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import type { ConnectionRecord, ConnectionStore } from '@verify-hub/core';
import type { FileInspection, RemovableRisk } from '@verify-hub/connector-file';
import { HttpError } from './http-errors';
import { inspectUpload } from './upload-inspection';
import type { UploadView } from './run-api-types';

/**
 * Uploads are kept as connections (`file-<uploadId>`): the file connector reads its options (the
 * file, email column, rows to remove) from a connection like any connector, so a run over an upload
 * is started like any other run. The file itself lives in `<uploadDir>/<uploadId>/`.
 */

/** What an upload's connection holds: the file connector's options, plus the run started from it. */
export interface UploadSettings {
  input: string;
  column?: string;
  remove: RemovableRisk[];
  maxRows?: number;
  /** Set once a run was started over the upload: a second one would overwrite its outputs. */
  runId?: string;
  /** The connector also writes a file per category and flag (the run page's downloads). */
  split?: boolean;
}

export const UploadIdParams = z.object({ uploadId: z.uuid('must be an upload id') });

const FILE_CONNECTION_PREFIX = 'file-';
export const connectionIdOf = (uploadId: string) => `${FILE_CONNECTION_PREFIX}${uploadId}`;

/** The upload id of a connection that stores an upload; undefined for any other connection. */
export function uploadIdOfConnection(record: ConnectionRecord): string | undefined {
  const uploadId = record.platform === 'file' && record.id.startsWith(FILE_CONNECTION_PREFIX) ? record.id.slice(FILE_CONNECTION_PREFIX.length) : undefined;
  return uploadId !== undefined && UploadIdParams.safeParse({ uploadId }).success ? uploadId : undefined;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export interface UploadStoreOptions {
  uploadDir: string;
  connections?: ConnectionStore;
  maxRows?: number;
  now: () => number;
}

export class UploadStore {
  constructor(private readonly options: UploadStoreOptions) {}

  /** The connection store (503 without one: uploads need HUB_SECRET_KEY). */
  connections(): ConnectionStore {
    if (!this.options.connections) throw new HttpError(503, 'UPLOADS_DISABLED', 'file uploads need the connection store: set HUB_SECRET_KEY');
    return this.options.connections;
  }

  /** Removes the upload's folder and its connection. */
  async discard(uploadId: string): Promise<void> {
    await rm(join(this.options.uploadDir, uploadId), { recursive: true, force: true });
    await this.options.connections?.delete(connectionIdOf(uploadId));
  }

  /** The received file, read once now: a file over the row limit, without an email column or unreadable is refused here, before any run. */
  async keep(file: Express.Multer.File, uploadId: string, column: string | undefined): Promise<{ record: ConnectionRecord; inspection: FileInspection }> {
    const settings: UploadSettings = { input: file.path, column, remove: ['invalid'], maxRows: this.options.maxRows, split: true };
    const inspection = await inspectUpload(settings);
    const record: ConnectionRecord = { id: connectionIdOf(uploadId), platform: 'file', label: file.originalname.slice(0, 200), createdAt: new Date(this.options.now()).toISOString(), credentials: {}, settings: { ...settings } };
    await this.connections().save(record);
    return { record, inspection };
  }

  /** A kept upload by id (404 when there is none). */
  async kept(uploadId: string): Promise<{ record: ConnectionRecord; settings: UploadSettings }> {
    const record = await this.connections().get(connectionIdOf(uploadId));
    const input = record?.settings?.input;
    // Only a file inside the upload folder is ever read (or its outputs written) from here.
    if (!record || record.platform !== 'file' || typeof input !== 'string' || !isInside(this.options.uploadDir, input)) throw new HttpError(404, 'NOT_FOUND', `upload ${uploadId} not found`);
    return { record, settings: record.settings as unknown as UploadSettings };
  }

  async save(record: ConnectionRecord, settings: UploadSettings): Promise<void> {
    await this.connections().save({ ...record, settings: { ...settings } });
  }

  /** What the API answers about an upload. */
  async view(uploadId: string, record: ConnectionRecord, inspection: FileInspection): Promise<UploadView> {
    return {
      id: uploadId,
      name: record.label,
      bytes: (await stat(String(record.settings!.input))).size,
      rows: inspection.rowCount,
      columns: inspection.columns,
      emailColumn: inspection.emailColumn,
    };
  }
}
