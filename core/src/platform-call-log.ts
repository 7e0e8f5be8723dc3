import type { Logger } from './logger';

/**
 * The log lines of a connector's platform calls, the same for every platform: one line per call (each
 * attempt is a request) at debug, one per failure (what outlived the retries) at warn with the error
 * object, so pino writes its stack and cause. No URL query, header or body is logged: a path only.
 */
export interface PlatformCall {
  method: string;
  /** The path without query (where some APIs take keys) or host. */
  path: string;
  /** Undefined when no answer came (network failure, timeout). */
  status: number | undefined;
  durationMs: number;
  /** The platform's own id of the request (HubSpot's correlation id, Mailchimp's request id), when it sent one. */
  requestId: string | undefined;
}

/** The connector's child logger: every line names the platform and the connection. */
export function platformLogger(logger: Logger | undefined, platform: string, connectionId: string): Logger | undefined {
  return logger?.child({ platform, connectionId });
}

export function logPlatformCall(logger: Logger | undefined, call: PlatformCall): void {
  logger?.debug({ call: { ...call, durationMs: Math.round(call.durationMs) } }, `${call.method} ${call.path} ${call.status ?? 'no answer'}`);
}

export function logPlatformFailure(logger: Logger | undefined, error: unknown, what: string): void {
  logger?.warn({ err: error }, `${what} failed`);
}

/** A path without host or query: what `PlatformCall.path` holds. */
export function pathOfUrl(url: string): string {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return url.split('?')[0]!;
  }
}
