import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { HttpError } from './http-errors';

/** Receiving an uploaded file: multer to disk, one folder per upload, refusals in words that name `file`. */
export const UPLOAD_EXTENSIONS = ['.csv', '.tsv', '.txt', '.xlsx'];
export const DEFAULT_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;

/** A file name safe to keep on disk: the original's letters, digits, dot, dash and underscore, extension lower-cased. */
function safeName(original: string): string {
  const ext = extname(original).toLowerCase();
  const stem = basename(original, extname(original)).replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '').slice(0, 100) || 'upload';
  return `${stem}${ext}`;
}

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

const uploadIdOf = (req: Request) => (req as { uploadId?: string }).uploadId;

/**
 * Receives the form field `file` into `<uploadDir>/<new upload id>/`. A refused upload (type, size,
 * field, a body that is not multipart) leaves nothing behind: multer removes the partial file, this the folder.
 */
export function uploadReceiver(uploadDir: string, maxBytes = DEFAULT_UPLOAD_MAX_BYTES): RequestHandler {
  const upload = multer({
    storage: multer.diskStorage({
      destination: (req, _file, done) => {
        const id = randomUUID();
        (req as { uploadId?: string }).uploadId = id;
        const dir = join(uploadDir, id);
        try {
          mkdirSync(dir, { recursive: true, mode: 0o700 });
          done(null, dir);
        } catch (error) {
          done(error as Error, dir);
        }
      },
      filename: (_req, file, done) => done(null, safeName(file.originalname)),
    }),
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 1024 },
    fileFilter: (_req, file, done) => {
      if (file.fieldname !== 'file') return done(new HttpError(400, 'INVALID_INPUT', `${file.fieldname}: send the file in the form field "file"`, 'file'));
      const ext = extname(file.originalname).toLowerCase();
      if (!UPLOAD_EXTENSIONS.includes(ext)) {
        return done(new HttpError(400, 'INVALID_INPUT', `file: unsupported type "${ext || '(none)'}": upload a CSV file (.csv, .tsv, .txt) or an Excel workbook (.xlsx)`, 'file'));
      }
      done(null, true);
    },
  });
  return (req, res, next) => {
    upload.single('file')(req, res, (raw?: unknown) => {
      const error = raw === undefined ? undefined : malformedUpload(raw);
      const uploadId = uploadIdOf(req);
      if (!error || !uploadId) return next(error);
      rm(join(uploadDir, uploadId), { recursive: true, force: true }).then(() => next(error), () => next(error));
    });
  };
}

/** The received file and its upload id (400 when the request had none). */
export function receivedFile(req: Request): { file: Express.Multer.File; uploadId: string } {
  if (!req.file) throw new HttpError(400, 'INVALID_INPUT', 'file: required (multipart/form-data, field "file")', 'file');
  return { file: req.file, uploadId: uploadIdOf(req)! };
}
