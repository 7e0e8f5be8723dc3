import { estimateView, InputError, type Pricing } from '@verify-hub/core';
import { DEFAULT_MAX_ROWS, FileConnector, FileLimitError, type FileInspection } from '@verify-hub/connector-file';
import type { ConnectionOperations } from '@verify-hub/sync-jobs';
import { HttpError } from './http-errors';
import type { FileEstimate } from './run-api-types';
import type { UploadSettings } from './upload-store';

/**
 * The file connector's own reading of the file. Its refusals become 400s in words a marketer acts on,
 * naming `file` (or `column` for a column the user picked); server paths and CLI flags stay out.
 */
export async function inspectUpload(settings: UploadSettings): Promise<FileInspection> {
  try {
    return await new FileConnector(settings).inspect();
  } catch (error) {
    throw refusalOf(error, settings);
  }
}

function refusalOf(error: unknown, settings: UploadSettings): HttpError {
  // A file over a size limit (an .xlsx archive that expands too far): its words name the limit.
  if (error instanceof FileLimitError) return new HttpError(400, error.code, error.message, 'file');
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

/** The credit estimate of a run over the upload, with its cost and the wrong-column warning. */
export async function estimateUpload(
  options: { operations?: ConnectionOperations; pricing?: Pricing },
  connectionId: string,
  settings: UploadSettings,
  inspection: FileInspection,
): Promise<FileEstimate> {
  if (!options.operations) throw new HttpError(503, 'ESTIMATES_DISABLED', 'credit estimates are not available in this deployment');
  const counts = await options.operations.estimate({ platform: 'file', connectionId, scope: `file:${settings.input}` });
  const answer: FileEstimate = { ...counts, cost: estimateView(counts.estimatedCredits, options.pricing) };
  const check = inspection.emailCheck;
  if (check.warning) answer.columnWarning = { column: inspection.emailColumn, percent: check.percent, ...(check.suggestedColumn ? { suggestedColumn: check.suggestedColumn } : {}), message: check.warning };
  return answer;
}
