import { EngineClient, type Verifier } from '@verify-hub/core';
import type { Bundle, HttpResponse, ZObject } from 'zapier-platform-core';
import { engineBaseUrl } from './settings';

export interface ZapierVerifierOptions {
  /** Longest wait for one engine answer. */
  timeoutMs?: number;
  /** Extra attempts after the first for 5xx, network errors and timeouts. */
  retries?: number;
  /** Epoch ms: no attempt starts or runs past this (Zapier stops a step at 30 s). */
  deadline?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  random?: () => number;
}

/** Shorter than core's defaults: a Zap step has 30 seconds in all. */
const DEFAULTS = { timeoutMs: 20_000, retries: 2, backoffBaseMs: 250, backoffMaxMs: 2_000 };

/**
 * A `fetch` for core's EngineClient that goes through `z.request`, so every engine call is logged by
 * Zapier and passes the app's middleware. The middleware is the one source of the key header: the
 * client's own copy is dropped here. `z.request` (node-fetch) honours the AbortSignal, so the client's
 * timeout and the list action's time budget end calls in flight.
 */
export function zapierFetch(z: ZObject): typeof fetch {
  const send = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      if (name !== 'x-api-key') headers[name] = value;
    });
    const response: HttpResponse = await z.request({
      url: input instanceof Request ? input.url : String(input),
      method: 'GET',
      headers,
      // Errors are core's to classify from the status: z.request must not throw on 4xx/5xx itself.
      skipThrowForStatus: true,
      ...(init?.signal ? { signal: init.signal } : {}),
    } as Parameters<ZObject['request']>[0] & { url: string });
    const responseHeaders = new Headers();
    for (const name of ['content-type', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
      const value = response.getHeader(name);
      if (value) responseHeaders.set(name, value);
    }
    return new Response(typeof response.content === 'string' ? response.content : JSON.stringify(response.content ?? ''), { status: response.status, headers: responseHeaders });
  };
  return send as typeof fetch;
}

/**
 * core's EngineClient over `z.request`: the same retry loop, error classes and answer parsing as every
 * other caller of the engine, with Zapier's time limits (the deadline ends retries and calls in flight).
 */
export function zapierEngineVerifier(z: ZObject, bundle: Pick<Bundle, 'authData'>, options: ZapierVerifierOptions = {}): Verifier {
  return new EngineClient({
    baseUrl: engineBaseUrl(bundle),
    // Only the middleware sends the key (zapierFetch drops this copy); kept for the client's contract.
    apiKey: '',
    fetch: zapierFetch(z),
    userAgent: 'verify-hub-zapier',
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    retries: options.retries ?? DEFAULTS.retries,
    backoffBaseMs: options.backoffBaseMs ?? DEFAULTS.backoffBaseMs,
    backoffMaxMs: options.backoffMaxMs ?? DEFAULTS.backoffMaxMs,
    deadline: options.deadline,
    random: options.random,
  });
}
