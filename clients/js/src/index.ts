import type { paths } from './generated/engine-api.js';

/**
 * @verify-hub/client: the official JavaScript client of the verify-hub engine API
 * (`GET {baseUrl}/api/v1/verify?email=...` with the key in `X-API-Key`). Zero runtime dependencies;
 * the result types are generated from the engine's OpenAPI description (src/generated/engine-api.ts).
 *
 * `verify(email)` never throws for an answer: it resolves to `{ data, error: null }` holding the
 * published result exactly as the engine sent it, or to `{ data: null, error }` (see `VerifyHubError`).
 */

type VerifyOperation = paths['/api/v1/verify']['get'];

/** The verification result exactly as published (field set B, set A's flags, verify-hub's extension fields). */
export type VerificationResult = VerifyOperation['responses'][200]['content']['application/json'];

/**
 * Codes of `VerifyHubError.code`. A 400 carries the engine's own code when its body has one.
 * - `BAD_REQUEST`: 400 without a code (the `email` parameter is missing or malformed)
 * - `UNAUTHORIZED`: 401, the key is missing, invalid or revoked (retrying does not help)
 * - `RATE_LIMITED`: 429 rate limit, still limited after `maxRetries` waits, or reset further than `maxWaitMs`
 * - `QUOTA_EXCEEDED`: 429 quota (body code QUOTA/CREDIT, or a reset more than an hour away): never waited for
 * - `SERVER_ERROR`: 5xx; `HTTP_ERROR`: any other status; `BAD_RESPONSE`: a 200 that is not a JSON object
 * - `NETWORK_ERROR`: no HTTP answer (refused, DNS, reset); `TIMEOUT`: no full answer within `timeoutMs`
 */
export type VerifyHubErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'RATE_LIMITED'
  | 'QUOTA_EXCEEDED'
  | 'SERVER_ERROR'
  | 'HTTP_ERROR'
  | 'BAD_RESPONSE'
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | (string & {});

/** Why a verification gave no result. The API key never appears in it. */
export interface VerifyHubError {
  /** The HTTP status, or null when no HTTP answer came (network error, timeout). */
  status: number | null;
  code: VerifyHubErrorCode;
  /** The engine's `error` text when it sent one, otherwise a description of what went wrong. */
  message: string;
  /** On a 429: milliseconds until the limit or quota resets (from `X-RateLimit-Reset`). */
  retryAfterMs?: number;
}

export type VerifyResponse = { data: VerificationResult; error: null } | { data: null; error: VerifyHubError };

export interface VerifyHubClientOptions {
  /** The engine API key; sent only in the `X-API-Key` header. */
  apiKey: string;
  /** The engine's base address, e.g. `http://127.0.0.1:8081` or `https://api.example.com` (paths are appended). */
  baseUrl: string;
  /** Limit for each HTTP request, answer body included. Default 10000. */
  timeoutMs?: number;
  /** How many times a rate-limited (429) request is retried after waiting for `X-RateLimit-Reset`. Default 2. */
  maxRetries?: number;
  /** The longest wait for a rate-limit reset; a 429 that resets later is returned as an error. Default 60000. */
  maxWaitMs?: number;
  /** A fetch implementation (default: the global `fetch` of Node 18+, browsers, Deno, Bun). */
  fetch?: typeof fetch;
}

/** A 429 is a quota, not a rate limit, when its reset is further away than any rate window. */
export const QUOTA_RESET_THRESHOLD_MS = 60 * 60 * 1000;
const FALLBACK_WAIT_MS = 1000;

/**
 * `X-RateLimit-Reset` in any of its three forms, told apart by magnitude (as verify-hub's core reads it):
 * >= 1e12 epoch milliseconds, >= 1e9 epoch seconds, otherwise seconds from now. Returns epoch milliseconds.
 */
export function parseRateLimitReset(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const n = Number(value.trim());
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n >= 1e12) return Math.round(n);
  if (n >= 1e9) return Math.round(n * 1000);
  return now + Math.round(n * 1000);
}

function resetAt(headers: Headers, now: number): number {
  const reset = parseRateLimitReset(headers.get('x-ratelimit-reset'), now);
  if (reset !== undefined) return reset;
  const retryAfter = Number(headers.get('retry-after') ?? Number.NaN);
  return Number.isFinite(retryAfter) && retryAfter >= 0 ? now + retryAfter * 1000 : now + FALLBACK_WAIT_MS;
}

function isQuota(code: string | undefined, reset: number, now: number): boolean {
  const upper = code?.toUpperCase() ?? '';
  if (upper.includes('QUOTA') || upper.includes('CREDIT')) return true;
  if (upper.includes('RATE')) return false;
  return reset - now > QUOTA_RESET_THRESHOLD_MS;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

type Attempt = { kind: 'done'; response: VerifyResponse } | { kind: 'rate'; waitMs: number; error: VerifyHubError };

export class VerifyHubClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxWaitMs: number;
  readonly #apiKey: string;
  readonly #fetch: typeof fetch;

  constructor(options: VerifyHubClientOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey.trim() === '') throw new TypeError('apiKey: an engine API key is required');
    if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) throw new TypeError('baseUrl: an http(s) address is required, e.g. http://127.0.0.1:8081');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('fetch: no global fetch here (Node 18+ has one); pass options.fetch');
    this.#apiKey = options.apiKey;
    this.#fetch = fetchImpl;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = nonNegative('timeoutMs', options.timeoutMs, 10_000);
    this.maxRetries = nonNegative('maxRetries', options.maxRetries, 2);
    this.maxWaitMs = nonNegative('maxWaitMs', options.maxWaitMs, 60_000);
  }

  /** Verifies one address; resolves to `{ data }` or `{ error }`, never rejects for an answer or a network failure. */
  async verify(email: string): Promise<VerifyResponse> {
    const url = `${this.baseUrl}/api/v1/verify?email=${encodeURIComponent(email)}`;
    for (let attempt = 0; ; attempt += 1) {
      const result = await this.#attempt(url);
      if (result.kind === 'done') return result.response;
      if (attempt >= this.maxRetries || result.waitMs > this.maxWaitMs) return { data: null, error: result.error };
      await sleep(result.waitMs);
    }
  }

  async #attempt(url: string): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    try {
      const res = await this.#fetch(url, { method: 'GET', headers: { 'X-API-Key': this.#apiKey, Accept: 'application/json' }, signal: controller.signal });
      const text = await res.text();
      return this.#read(res, text);
    } catch (error) {
      if (controller.signal.aborted) return this.#fail({ status: null, code: 'TIMEOUT', message: `no answer from the engine within ${this.timeoutMs} ms` });
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
      return this.#fail({ status: null, code: 'NETWORK_ERROR', message: `could not reach the engine at ${this.baseUrl}: ${detail}` });
    } finally {
      clearTimeout(timer);
    }
  }

  #read(res: Response, text: string): Attempt {
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (res.status === 200) {
      if (isJsonObject(body)) return { kind: 'done', response: { data: body as VerificationResult, error: null } };
      return this.#fail({ status: 200, code: 'BAD_RESPONSE', message: 'the engine answered 200 without a JSON object' });
    }
    const bodyCode = isJsonObject(body) && typeof body.code === 'string' ? body.code : undefined;
    const message = isJsonObject(body) && typeof body.error === 'string' ? body.error : `the engine answered HTTP ${res.status}`;
    if (res.status === 429) {
      const now = Date.now();
      const reset = resetAt(res.headers, now);
      const retryAfterMs = Math.max(0, reset - now);
      if (isQuota(bodyCode, reset, now)) return this.#fail({ status: 429, code: 'QUOTA_EXCEEDED', message, retryAfterMs });
      return { kind: 'rate', waitMs: retryAfterMs, error: this.#redact({ status: 429, code: 'RATE_LIMITED', message, retryAfterMs }) };
    }
    if (res.status === 401) return this.#fail({ status: 401, code: 'UNAUTHORIZED', message });
    if (res.status === 400) return this.#fail({ status: 400, code: bodyCode ?? 'BAD_REQUEST', message });
    if (res.status >= 500) return this.#fail({ status: res.status, code: 'SERVER_ERROR', message });
    return this.#fail({ status: res.status, code: bodyCode ?? 'HTTP_ERROR', message });
  }

  #fail(error: VerifyHubError): Attempt {
    return { kind: 'done', response: { data: null, error: this.#redact(error) } };
  }

  /** The key is never part of an error, even if an engine or proxy echoed it. */
  #redact(error: VerifyHubError): VerifyHubError {
    return error.message.includes(this.#apiKey) ? { ...error, message: error.message.split(this.#apiKey).join('[redacted]') } : error;
  }
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${name}: must be a number >= 0`);
  return value;
}
