import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import { logPlatformCall, pathOfUrl, type Logger } from '@verify-hub/core';
import type { HeaderBag } from './response-errors';

/** HubSpot's id of a request, on every answer: what its support asks for. */
export const CORRELATION_HEADER = 'x-hubspot-correlation-id';

/** What one attempt sent and got back, noted by the SDK middleware (or `getJson`) while the attempt runs. */
interface CallNote {
  method?: string;
  path?: string;
  status?: number;
  requestId?: string;
}

// The SDK calls the middleware inside the attempt's promise chain, so the attempt's note is found
// there without threading it through every SDK call.
const currentCall = new AsyncLocalStorage<CallNote>();

export function noteRequest(method: string, url: string): void {
  const note = currentCall.getStore();
  if (!note) return;
  note.method = method;
  note.path = pathOfUrl(url);
}

export function noteResponse(status: number, headers: HeaderBag): void {
  const note = currentCall.getStore();
  if (!note) return;
  note.status = status;
  note.requestId = headers[CORRELATION_HEADER] ?? note.requestId;
}

/** Runs one attempt (one request) and writes its debug line: method, path, status, duration, correlation id. */
export async function loggedAttempt<T>(logger: Logger | undefined, attempt: () => Promise<T>): Promise<T> {
  if (!logger) return attempt();
  const note: CallNote = {};
  const started = performance.now();
  try {
    return await currentCall.run(note, attempt);
  } finally {
    if (note.method) logPlatformCall(logger, { method: note.method, path: note.path ?? '', status: note.status, durationMs: performance.now() - started, requestId: note.requestId });
  }
}
