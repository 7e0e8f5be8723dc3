import {
  backoffDelay,
  EngineResponseError,
  EngineResponseSchema,
  EngineUnavailableError,
  engineErrorFromResponse,
  normalizeEmail,
  shouldRetry,
  sleep,
  syntaxInvalidVerification,
  toVerification,
  unknownVerification,
  type Verification,
  type Verifier,
  type VerifyOptions,
} from '@verify-hub/core';
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

const DEFAULTS = { timeoutMs: 20_000, retries: 2, backoffBaseMs: 250, backoffMaxMs: 2_000 };

/**
 * core's `Verifier` over `z.request`, so every engine call is logged by Zapier and passes its
 * middleware (which adds the key header). The answer is read with core's `EngineResponseSchema` and
 * `toVerification`, any other status becomes core's typed error through `engineErrorFromResponse`.
 * Like core's `EngineClient`: 5xx and network trouble are retried with backoff while time allows,
 * then the address is `unknown` (not billed); auth, rate and quota errors are thrown.
 */
export class ZapierEngineVerifier implements Verifier {
  private readonly opts: Required<Omit<ZapierVerifierOptions, 'random' | 'deadline'>> & Pick<ZapierVerifierOptions, 'random' | 'deadline'>;
  private readonly url: string;

  constructor(private readonly z: ZObject, bundle: Pick<Bundle, 'authData'>, options: ZapierVerifierOptions = {}) {
    this.opts = { ...DEFAULTS, ...stripUndefined(options) };
    this.url = `${engineBaseUrl(bundle)}/api/v1/verify`;
  }

  async verify(email: string, { signal }: VerifyOptions = {}): Promise<Verification> {
    const pre = normalizeEmail(email);
    if (!pre.ok) return syntaxInvalidVerification(email);
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce(email, pre.normalized, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof EngineResponseError) return unknownVerification(email, pre.normalized, 'engine_bad_response');
        if (!shouldRetry(error)) throw error;
        const delay = backoffDelay(attempt, { baseMs: this.opts.backoffBaseMs, maxMs: this.opts.backoffMaxMs, random: this.opts.random });
        const outOfTime = this.opts.deadline !== undefined && Date.now() + delay >= this.opts.deadline;
        if (attempt >= this.opts.retries || outOfTime) {
          return unknownVerification(email, pre.normalized, error instanceof EngineUnavailableError && error.status ? 'engine_error' : 'engine_unreachable');
        }
        await sleep(delay, signal);
      }
    }
  }

  private async requestOnce(email: string, normalized: string, signal?: AbortSignal): Promise<Verification> {
    const left = this.opts.deadline === undefined ? Infinity : this.opts.deadline - Date.now();
    if (left <= 0) throw new EngineUnavailableError('no time left for another engine call');
    let response: HttpResponse;
    try {
      response = await this.z.request({
        url: this.url,
        method: 'GET',
        params: { email: normalized },
        headers: { Accept: 'application/json' },
        // With a signal, the caller's budget ends the call (a little slack lets the abort win the race,
        // so the address reads as "out of time", not "engine unreachable").
        timeout: Math.max(1, Math.floor(Math.min(this.opts.timeoutMs, left + (signal ? 500 : 0)))),
        // node-fetch (under z.request) honours an AbortSignal: the list action's time budget ends calls in flight.
        ...(signal ? { signal } : {}),
      } as Parameters<ZObject['request']>[0] & { url: string });
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      throw new EngineUnavailableError('engine unreachable or too slow', { cause: new Error((cause as Error)?.name ?? 'Error') });
    }
    const body = parseJson(response.content);
    if (response.status === 200) {
      const parsed = EngineResponseSchema.safeParse(body);
      if (!parsed.success) throw new EngineResponseError('engine answer is not a verification result', { status: 200 });
      return toVerification(parsed.data, email, normalized);
    }
    throw engineErrorFromResponse(response.status, (name) => response.getHeader(name) ?? null, body);
  }
}

function parseJson(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content);
  } catch {
    return undefined;
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
