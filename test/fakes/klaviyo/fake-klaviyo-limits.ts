import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The vendored part of Klaviyo's OpenAPI description (extract-openapi.js; MIT, OPENAPI-LICENSE). */
export const OPENAPI_SUBSET = JSON.parse(readFileSync(join(__dirname, 'openapi-subset.json'), 'utf8')) as { info: { version: string }; paths: Record<string, Record<string, unknown>>; components: Record<string, unknown> };

/** An operation of Klaviyo's API as the fake routes it: its id, scopes and burst/steady limits, from Klaviyo's OpenAPI description. */
export interface FakeOperation {
  operationId: string;
  scopes: string[];
  burst: number;
  steady: number;
}

type SubsetOperation = { operationId: string; 'x-klaviyo-scopes'?: string[]; 'x-klaviyo-ratelimit'?: { burst: string; steady: string } };

const perUnit = (text: string | undefined) => Number(/^(\d+)\//.exec(text ?? '')?.[1] ?? Infinity);

/** Each operation's scopes and limits, read from the vendored description (the same one answers are validated against). */
export const OPERATIONS: Record<string, FakeOperation> = Object.fromEntries(
  Object.values(OPENAPI_SUBSET.paths as Record<string, Record<string, SubsetOperation>>).flatMap((item) =>
    Object.values(item).map((op) => [op.operationId, { operationId: op.operationId, scopes: op['x-klaviyo-scopes'] ?? [], burst: perUnit(op['x-klaviyo-ratelimit']?.burst), steady: perUnit(op['x-klaviyo-ratelimit']?.steady) }]),
  ),
);

/**
 * Klaviyo's rate limits as it documents them: per operation and per account, a 1-second burst window
 * and a 1-minute steady window; over either, 429 with Retry-After (whole seconds until the window has
 * room) and a JSON:API `throttled` error. `scale` multiplies both limits (a bench may raise them to see
 * the connector's own pace; tests keep 1, Klaviyo's numbers).
 */
export class FakeRateLimits {
  private readonly calls = new Map<string, number[]>();
  /** Every 429 answered, by operation. */
  readonly throttled: Record<string, number> = {};

  constructor(private readonly scale = 1) {}

  /** Seconds to wait when `op` is over a limit now (the call is then not counted), else undefined (counted). */
  take(op: FakeOperation, now = Date.now()): number | undefined {
    const times = (this.calls.get(op.operationId) ?? []).filter((t) => t > now - 60_000);
    const lastSecond = times.filter((t) => t > now - 1000);
    let waitMs = 0;
    if (lastSecond.length >= op.burst * this.scale) waitMs = lastSecond[lastSecond.length - Math.floor(op.burst * this.scale)]! + 1000 - now;
    if (times.length >= op.steady * this.scale) waitMs = Math.max(waitMs, times[times.length - Math.floor(op.steady * this.scale)]! + 60_000 - now);
    this.calls.set(op.operationId, waitMs > 0 ? times : [...times, now]);
    if (waitMs <= 0) return undefined;
    this.throttled[op.operationId] = (this.throttled[op.operationId] ?? 0) + 1;
    return Math.max(1, Math.ceil(waitMs / 1000));
  }
}
