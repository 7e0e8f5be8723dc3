import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { InputError, PlatformUnreachableError, VerifyHubError, WebhookRejectedError, type Logger } from '@verify-hub/core';
import { PlatformRejectedError } from './platform-setup';

/**
 * Errors the hub answers with, in the engine's JSON shape `{"error": "...", "code": "..."}` (plus
 * `field` for bad input). Clients never see a stack trace or an internal message.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function sendError(res: Response, status: number, code: string, message: string, field?: string): void {
  res.status(status).json(field === undefined ? { error: message, code } : { error: message, code, field });
}

export const notFound: RequestHandler = (req, res) => sendError(res, 404, 'NOT_FOUND', `no route for ${req.method} ${req.path.split('/').slice(0, 3).join('/')}`);

/** body-parser and multer errors carry these; anything else is an internal error. */
interface TransportError {
  type?: string;
  status?: number;
  statusCode?: number;
  code?: string;
  field?: string;
}

/** Maps every error to one answer, in one place; logs internal ones with their stack, server-side only. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.field);
    if (error instanceof WebhookRejectedError) return sendError(res, error.status ?? 400, error.code, error.message);
    // The pipeline refusing a request (unknown connection, a finished run resumed): the caller's to fix.
    if (error instanceof InputError) return sendError(res, 400, error.code, error.message, error.field);
    if (error instanceof PlatformRejectedError) return sendError(res, 400, error.code, error.message, error.field);
    // A platform out of reach: its connector's words say what to check (the hub names no platform itself).
    if (error instanceof PlatformUnreachableError) return sendError(res, 502, error.code, error.message);
    const transport = (error ?? {}) as TransportError;
    if (transport.type === 'entity.too.large' || transport.code === 'LIMIT_FILE_SIZE') {
      return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'request body is larger than the limit');
    }
    if (transport.type === 'entity.parse.failed') return sendError(res, 400, 'INVALID_INPUT', 'body: not valid JSON', 'body');
    if (typeof transport.code === 'string' && transport.code.startsWith('LIMIT_')) {
      // multer's other limits: unexpected field, too many files or parts.
      return sendError(res, 400, 'INVALID_INPUT', `${transport.field ?? 'file'}: ${(error as Error).message}`, transport.field ?? 'file');
    }
    // The hub's own errors say what was wrong; only a transport error's status is answered without its words.
    if (error instanceof VerifyHubError && error.status && error.status >= 400 && error.status < 500) {
      return sendError(res, error.status, error.code, error.message);
    }
    const status = transport.status ?? transport.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendError(res, status, 'BAD_REQUEST', 'the request could not be read');
    }
    logger.error({ err: error, method: req.method, route: req.route?.path }, 'request failed');
    sendError(res, 500, 'INTERNAL', 'internal error');
  };
}
