import type { z } from 'zod';
import { logPlatformCall, noLimit, type CallLimiter, type Logger } from '@verify-hub/core';
import { ActivecampaignErrors, ActivecampaignNotFoundError, ActivecampaignRequestError } from './errors';
import { Refusal } from './responses';

/** A query string value: arrays become repeated `name[]=` parameters (`ids[]=1&ids[]=2`). */
export type Query = Record<string, string | number | string[] | undefined>;

export interface ClientOptions {
  /** Where the API answers: the account's URL (`https://<account>.api-us1.com`), or ACTIVECAMPAIGN_API_BASE. */
  baseUrl: string;
  token: string;
  /** Every call goes through it: the account's requests per second, shared by every worker. */
  limiter?: CallLimiter;
  logger?: Logger;
  timeoutMs?: number;
}

export interface CallOptions {
  query?: Query;
  body?: unknown;
  /** A second limiter this call also waits for (bulk imports have their own per-minute limit). */
  limiter?: CallLimiter;
}

/** Retry-After in seconds or as an HTTP date; 1 s when absent or unreadable. */
function retryAfterMs(header: string | null, now: number): number {
  if (header && /^\d+(\.\d+)?$/.test(header.trim())) return Math.max(Number(header) * 1000, 0);
  const date = header ? Date.parse(header) : NaN;
  return Number.isFinite(date) ? Math.max(date - now, 0) : 1000;
}

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(`${name}[]`, item);
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * ActiveCampaign's API v3, typed: the `Api-Token` header, JSON bodies, every answer checked with its zod
 * schema. Its answers become core's kinds here, in one place: 401/403 refused credentials, 429 a rate
 * limit until Retry-After, 5xx or no answer transient, 404 not found, other 4xx refused with
 * ActiveCampaign's words. Nothing here retries: the host does (docs/adding-a-platform.md).
 */
export class ActivecampaignClient {
  private readonly limiter: CallLimiter;
  private readonly base: string;

  constructor(private readonly options: ClientOptions) {
    this.limiter = options.limiter ?? noLimit;
    this.base = `${options.baseUrl.replace(/\/+$/, '')}/api/3`;
  }

  call<S extends z.ZodType>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, schema: S, options: CallOptions = {}): Promise<z.output<S>> {
    const send = () => this.limiter.schedule(() => this.send(method, path, schema, options));
    return options.limiter ? options.limiter.schedule(send) : send();
  }

  private async send<S extends z.ZodType>(method: string, path: string, schema: S, options: CallOptions): Promise<z.output<S>> {
    const what = `${method} ${path}`;
    const started = performance.now();
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}${queryString(options.query)}`, {
        method,
        headers: { 'Api-Token': this.options.token, accept: 'application/json', ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
      });
    } catch (error) {
      logPlatformCall(this.options.logger, { method, path, status: undefined, durationMs: performance.now() - started, requestId: undefined });
      throw new ActivecampaignErrors.TransientError(`ActiveCampaign could not be reached for ${what} (${(error as Error).message})`, { cause: error });
    }
    logPlatformCall(this.options.logger, { method, path, status: response.status, durationMs: performance.now() - started, requestId: response.headers.get('x-request-id') ?? undefined });
    const text = await response.text();
    if (response.status === 401 || response.status === 403) {
      throw new ActivecampaignErrors.AuthError(`ActiveCampaign refused the API token (${response.status} to ${what})`, { status: response.status });
    }
    if (response.status === 429) {
      const waitMs = retryAfterMs(response.headers.get('retry-after'), Date.now());
      throw new ActivecampaignErrors.RateLimitError(`ActiveCampaign's rate limit (5 requests a second per account) was reached on ${what}`, { resetAt: Date.now() + waitMs }, { status: 429 });
    }
    if (response.status >= 500) throw new ActivecampaignErrors.TransientError(`ActiveCampaign answered ${response.status} to ${what}`, { status: response.status });
    if (!response.ok) {
      const words = refusalWords(text);
      const message = `ActiveCampaign refused ${what} (${response.status}${words ? `: ${words}` : ''})`;
      if (response.status === 404) throw new ActivecampaignNotFoundError(message, { status: 404 });
      throw new ActivecampaignRequestError(message, { status: response.status });
    }
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      throw new ActivecampaignErrors.TransientError(`ActiveCampaign answered ${what} with something that is not JSON`, { status: response.status });
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ActivecampaignRequestError(`ActiveCampaign's answer to ${what} is not what its API documents (${issue.path.join('.') || 'body'}: ${issue.message})`, { status: response.status });
    }
    return parsed.data;
  }
}

function refusalWords(text: string): string {
  try {
    const refusal = Refusal.safeParse(JSON.parse(text));
    if (!refusal.success) return '';
    const titles = (refusal.data.errors ?? []).map((e) => [e.title, e.detail].filter(Boolean).join(': ')).filter(Boolean);
    return (titles.length ? titles.join('; ') : (refusal.data.message ?? '')).slice(0, 300);
  } catch {
    return '';
  }
}
