import pino, { type Logger, type LoggerOptions } from 'pino';

/** Paths pino blanks in every log line: keys, tokens and secrets never reach a log. */
export const REDACT_PATHS = [
  'apiKey', '*.apiKey', 'key', '*.key', 'token', '*.token', 'accessToken', '*.accessToken', 'refreshToken', '*.refreshToken',
  'secret', '*.secret', 'clientSecret', '*.clientSecret', 'password', '*.password', 'authorization', '*.authorization',
  'headers["x-api-key"]', '*.headers["x-api-key"]', 'headers.authorization', '*.headers.authorization',
  'req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie',
];

export function createLogger(options: LoggerOptions & { destination?: pino.DestinationStream } = {}): Logger {
  const { destination, ...rest } = options;
  const opts: LoggerOptions = {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...rest,
  };
  return destination ? pino(opts, destination) : pino(opts);
}

export type { Logger };
