import { readEngineAnswer } from './engine-wire';
import { fetchTransport, nodeHttpTransport, type EngineHttpAnswer, type EngineTransport } from './engine-transport';
import { deadline, type Deadline } from './deadline';
import {
  ConfigError,
  EngineAuthError,
  EngineQuotaError,
  EngineRateLimitError,
  EngineResponseError,
  EngineUnavailableError,
  VerifyHubError,
} from './errors';
import { normalizeEmail } from './normalize';
import type { Logger } from './logger';
import { isQuota429, readRateLimitHeaders } from './rate-limit';
import { backoffDelay, shouldRetry, sleep } from './retry';
import { markCollected, type Verifier, type VerifyOptions } from './verifier';
import { syntaxInvalidVerification, unknownVerification, type Verification } from './verification';

export interface EngineClientOptions {
  /** For example `https://engine.example.com` or `http://127.0.0.1:8081`; `/api/v1/verify` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Per-attempt timeout. */
  timeoutMs?: number;
  /** Extra attempts after the first for 5xx, network errors and timeouts. */
  retries?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  userAgent?: string;
  /** Epoch ms: no attempt starts or runs past this; what is left unanswered then is `unknown` (Zapier stops a step at 30 s). */
  deadline?: number;
  /**
   * For hosts with their own HTTP helper (Zapier's z.request, n8n's helpers), proxies and tests;
   * without it, Node's HTTP client over keep-alive sockets (lighter than the global fetch).
   */
  fetch?: typeof fetch;
  random?: () => number;
  /**
   * Where a field of an answer that had to be dropped is reported. The default is a Node process warning:
   * core's client also runs inside the Zapier and n8n bundles, which must not carry a logging library.
   */
  logger?: Pick<Logger, 'warn'>;
}

const processWarnings: Pick<Logger, 'warn'> = {
  warn: (fields: unknown, message?: string) => process.emitWarning(`${message ?? ''} ${JSON.stringify(fields)}`.trim(), 'VerifyHubEngineAnswer'),
};

/** The service's hosted engine: the default base URL of the Zapier app, the n8n credential and the MCP server. */
export const HOSTED_ENGINE_URL = 'https://api.verify-hub.com';

const DEFAULTS = { timeoutMs: 15_000, retries: 3, backoffBaseMs: 250, backoffMaxMs: 8_000 };

/**
 * The one HTTP client of the engine API (DESIGN.md §1). The key travels only in the `X-API-Key`
 * header; it never appears in a URL, log line or error message.
 */
export class EngineClient implements Verifier {
  private readonly url: URL;
  private readonly transport: EngineTransport;
  private readonly opts: Required<Pick<EngineClientOptions, 'timeoutMs' | 'retries' | 'backoffBaseMs' | 'backoffMaxMs'>>;

  constructor(private readonly options: EngineClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new ConfigError('ENGINE_URL', 'not a valid URL');
    }
    if (base.username || base.password) throw new ConfigError('ENGINE_URL', 'must not carry credentials; put the key in ENGINE_API_KEY');
    this.url = new URL(base.pathname.replace(/\/+$/, '') + '/api/v1/verify', base);
    this.transport = options.fetch ? fetchTransport(options.fetch) : nodeHttpTransport;
    this.opts = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      retries: options.retries ?? DEFAULTS.retries,
      backoffBaseMs: options.backoffBaseMs ?? DEFAULTS.backoffBaseMs,
      backoffMaxMs: options.backoffMaxMs ?? DEFAULTS.backoffMaxMs,
    };
  }

  /** The engine's base URL, without credentials (safe to show). */
  get baseUrl(): string {
    return this.options.baseUrl;
  }

  async verify(email: string, { signal, idempotencyKey }: VerifyOptions = {}): Promise<Verification> {
    const pre = normalizeEmail(email);
    if (!pre.ok) return syntaxInvalidVerification(email);

    // The only retry loop of the engine layer.
    let failures = 0;
    let inUseSince: number | undefined;
    for (;;) {
      try {
        return await this.requestOnce(email, pre.normalized, signal, idempotencyKey);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        // An answer that is not a result (malformed body, unexpected status) is not worth retrying, and
        // still must not lose the address: it becomes an unknown, re-checked later.
        if (error instanceof EngineResponseError) return unknownVerification(email, pre.normalized, 'engine_bad_response');
        if (!shouldRetry(error)) throw error;
        // 409: this Idempotency-Key is still being answered (a chunk replayed after a worker was lost, or
        // after a Redis failover, while its first run's call is in flight). That answer is coming and
        // replays free: it is asked for again at the base delay, for as long as one call may take,
        // without spending a retry (an unknown would be bought again later).
        const inUse = error instanceof EngineUnavailableError && error.status === 409 && Date.now() - (inUseSince ??= Date.now()) < this.opts.timeoutMs;
        const delay = backoffDelay(inUse ? 0 : failures, { baseMs: this.opts.backoffBaseMs, maxMs: this.opts.backoffMaxMs, random: this.options.random });
        if (!inUse && failures++ >= this.opts.retries) {
          return unknownVerification(email, pre.normalized, error instanceof EngineUnavailableError && error.status ? 'engine_error' : 'engine_unreachable');
        }
        // Another try would have been made with time left: the caller's deadline, not the engine, ends it.
        if (this.options.deadline !== undefined && Date.now() + delay >= this.options.deadline) {
          return unknownVerification(email, pre.normalized, 'time_budget_exceeded');
        }
        await sleep(delay, signal);
      }
    }
  }

  private async requestOnce(email: string, normalized: string, signal?: AbortSignal, idempotencyKey?: string): Promise<Verification> {
    const url = new URL(this.url);
    url.searchParams.set('email', normalized);
    const left = this.options.deadline === undefined ? Infinity : this.options.deadline - Date.now();
    if (left <= 0) throw new EngineUnavailableError('no time left for another engine call');
    const timeoutMs = Math.max(1, Math.floor(Math.min(this.opts.timeoutMs, left)));
    const timeout = deadline(timeoutMs, signal);
    try {
      return await this.answerOf(email, normalized, await this.fetchAnswer(url, timeout, timeoutMs, signal, idempotencyKey));
    } finally {
      timeout.clear();
    }
  }

  private async fetchAnswer(url: URL, timeout: Deadline, timeoutMs: number, signal?: AbortSignal, idempotencyKey?: string): Promise<EngineHttpAnswer> {
    const headers: Record<string, string> = {
      'X-API-Key': this.options.apiKey,
      Accept: 'application/json',
      'User-Agent': this.options.userAgent ?? 'verify-hub',
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    };
    try {
      return await this.transport(url, headers, timeout);
    } catch (cause) {
      if (cause instanceof EngineResponseError) throw cause;
      const timedOut = timeout.aborted && !signal?.aborted;
      throw new EngineUnavailableError(timedOut ? `engine did not answer within ${timeoutMs} ms` : 'engine unreachable', { cause: describeCause(cause) });
    }
  }

  private answerOf(email: string, normalized: string, answer: EngineHttpAnswer): Verification {
    if (answer.status === 200) {
      const reading = readEngineAnswer(safeJson(answer.body), email, normalized);
      const requestId = answer.header('x-request-id');
      if (reading.warnings.length > 0) {
        (this.options.logger ?? processWarnings).warn({ requestId, fields: reading.warnings }, `engine answer: dropped ${reading.warnings.map((w) => w.field).join(', ')} (kept the verdict)`);
      }
      if (!reading.ok) throw new EngineResponseError(`engine answer is not a verification result: ${reading.problem}`, { status: 200, requestId });
      // Answered and billed before under this Idempotency-Key: the same purchase, collected again.
      return answer.header('idempotent-replayed') === 'true' ? markCollected(reading.verification) : reading.verification;
    }
    throw engineErrorFromResponse(answer.status, answer.header, safeJson(answer.body));
  }
}

/** The one place where an engine answer other than 200 becomes a typed error. */
export function engineErrorFromResponse(
  status: number,
  header: (name: string) => string | null | undefined,
  body: unknown,
  now = Date.now(),
): VerifyHubError {
  const requestId = header('x-request-id') ?? undefined;
  const b = (body && typeof body === 'object' ? body : {}) as { error?: unknown; code?: unknown; message?: unknown };
  const code = typeof b.code === 'string' ? b.code : undefined;
  const text = typeof b.error === 'string' ? b.error : typeof b.message === 'string' ? b.message : undefined;
  if (status === 401 || status === 403) {
    return new EngineAuthError(`engine rejected the API key (${code ?? status})${text ? `: ${text}` : ''}`, { status, requestId });
  }
  if (status === 429) {
    const info = readRateLimitHeaders(header, now);
    const when = new Date(info.resetAt).toISOString();
    if (isQuota429(code, info.resetAt, now)) {
      return new EngineQuotaError(`engine quota exhausted until ${when}: buy a credit pack or upgrade the plan`, info, { status, requestId });
    }
    return new EngineRateLimitError(`engine rate limit reached; resets at ${when}`, info, { status, requestId });
  }
  // 409: the same Idempotency-Key is still being answered (a replay raced its first request): ask again shortly.
  if (status >= 500 || status === 408 || status === 409) {
    return new EngineUnavailableError(`engine answered ${status}${text ? `: ${text}` : ''}`, { status, requestId });
  }
  return new EngineResponseError(`engine answered ${status}${code ? ` ${code}` : ''}${text ? `: ${text}` : ''}`, { status, requestId });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Keeps the error's kind and message but never the request (whose headers hold the key). */
function describeCause(cause: unknown): Error {
  if (cause instanceof Error) {
    const inner = (cause as Error & { cause?: { code?: string } }).cause;
    return new Error(`${cause.name}: ${cause.message}${inner?.code ? ` (${inner.code})` : ''}`);
  }
  return new Error(String(cause));
}
