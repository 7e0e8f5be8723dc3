import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Cancellation } from './deadline';
import { EngineResponseError } from './errors';

/** One engine answer as the client reads it: status, headers, whole body. */
export interface EngineHttpAnswer {
  status: number;
  header(name: string): string | undefined;
  body: string;
}

/** Sends one GET to the engine; rejects on a network failure, when `cancel` aborts (with its reason), or (EngineResponseError) on an answer too large to be a result. */
export type EngineTransport = (url: URL, headers: Record<string, string>, cancel: Cancellation) => Promise<EngineHttpAnswer>;

/** An answer bigger than this is not an engine result (a published one is well under 2 KB). */
export const MAX_ENGINE_ANSWER_BYTES = 1024 * 1024;

/**
 * Idle keep-alive sockets are closed after this, before a Node engine's default 5 s keep-alive
 * timeout closes them under a request (a reset, which `nodeHttpTransport` answers by sending again).
 */
const IDLE_SOCKET_MS = 4_000;
const agents = { http: new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }), https: new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) };

/** At most this many stale sockets in a row are skipped before the failure counts. */
const MAX_STALE_SOCKETS = 3;

class StaleSocketError extends Error {}

/**
 * The default transport: Node's own HTTP client over keep-alive sockets. The global `fetch` (undici)
 * was measured to be the largest source of promoted garbage in a 50,000-row clean: every call builds
 * web streams, a Request, a Response and weak references that a young-generation GC keeps, so a
 * thousand calls a second grew the old generation by tens of MB a second (issue 22).
 */
export const nodeHttpTransport: EngineTransport = async (url, headers, cancel) => {
  for (let reused = 0; ; reused++) {
    try {
      return await sendOnce(url, headers, cancel);
    } catch (error) {
      // A kept-alive socket the engine closed as it was reused: the request never reached the engine, so
      // it is sent again on a fresh socket (what fetch does itself). Not a retry of the engine's answer:
      // those are the engine client's, once, in engine-client.ts.
      if (!(error instanceof StaleSocketError)) throw error;
      if (cancel.aborted || reused >= MAX_STALE_SOCKETS) throw error.cause;
    }
  }
};

/**
 * One request. The deadline is watched through `onAbort`, not passed as the request's `signal`: that
 * would make an AbortSignal per call, which Node 20 promotes with the request listening to it.
 */
function sendOnce(url: URL, headers: Record<string, string>, cancel: Cancellation): Promise<EngineHttpAnswer> {
  if (cancel.aborted) return Promise.reject(cancel.reason);
  return new Promise<EngineHttpAnswer>((resolveAnswer, rejectAnswer) => {
    let answered = false;
    let stopListening = () => undefined as void;
    const resolve = (answer: EngineHttpAnswer) => {
      stopListening();
      resolveAnswer(answer);
    };
    const reject = (error: unknown) => {
      stopListening();
      rejectAnswer(error);
    };
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    const request = send(url, { method: 'GET', headers, agent: secure ? agents.https : agents.http }, (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ENGINE_ANSWER_BYTES) return void response.destroy(new EngineResponseError(`engine answer larger than ${MAX_ENGINE_ANSWER_BYTES} bytes`, { status: response.statusCode }));
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => {
        const responseHeaders = response.headers;
        resolve({
          status: response.statusCode ?? 0,
          header: (name) => {
            const value = responseHeaders[name.toLowerCase()];
            return Array.isArray(value) ? value.join(', ') : value;
          },
          body: Buffer.concat(chunks, size).toString('utf8'),
        });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const stale = !answered && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleSocketError('kept-alive socket closed by the engine', { cause: error }) : error);
    });
    // The deadline's reason is the answer; the request (and its response, with it) is then torn down.
    stopListening = cancel.onAbort((reason) => {
      rejectAnswer(reason);
      request.destroy();
    });
    request.end();
  });
}

/** A host's own `fetch` (Zapier's z.request, n8n's helpers, a test double) as a transport. */
export function fetchTransport(doFetch: typeof fetch): EngineTransport {
  return async (url, headers, cancel) => {
    const response = await doFetch(url, { method: 'GET', headers, signal: cancel.signal });
    const body = await response.text().catch(() => '');
    return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, body };
  };
}
