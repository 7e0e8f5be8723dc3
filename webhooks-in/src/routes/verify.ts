import { Router } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { z } from 'zod';
import {
  EngineAuthError,
  EngineQuotaError,
  EngineRateLimitError,
  checksInWords,
  explainInWords,
  reasonInWords,
  suggestedAddress,
  type Verification,
  type Verifier,
} from '@verify-hub/core';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import type { SingleCheckAnswer } from '../run-api-types';

/** Words for reasons only the local engine gives; the rest are core's REASON_WORDS. */
const OWN_WORDS: Readonly<Record<string, string>> = {
  dns_unavailable: 'DNS cannot reach the internet from the hub, so its mail server could not be looked up',
};

const VerifyBody = z.strictObject({
  email: z.string({ error: 'is required: the address to check' }).trim().min(1, 'is required: the address to check').max(320, 'is longer than an email address can be (320 characters)'),
});

export function explainResult(v: Verification): SingleCheckAnswer {
  return {
    verification: v,
    explanation: {
      summary: explainInWords(v, { own: OWN_WORDS, retryHint: 'check it again later' }),
      reason: reasonInWords(v.reason, OWN_WORDS) ?? v.reason.replace(/_/g, ' '),
      checks: checksInWords(v),
      didYouMean: suggestedAddress(v),
    },
  };
}

export interface SingleCheckOptions {
  /** The engine `verify-hub serve` wires (the workers' engine); without one the route answers 503. */
  verifier?: Verifier;
  redis: Redis;
  prefix: string;
  /** Checks allowed per client address per minute (default 30). */
  perMinute?: number;
}

/**
 * `POST /api/verify {"email"}` (under the admin auth): one address checked at once by the engine, for
 * the dashboard's single-address box. It goes straight to the verifier: no run, no counters, no cache.
 * Checks are limited per client address in Redis (shared by every hub instance), as they spend engine
 * credits without a run's credit cap. The engine's refusals are answered as what to do, never as a 401
 * (the dashboard would read that as its own session ending).
 */
export function singleCheckRoutes(options: SingleCheckOptions): Router {
  const router = Router();
  const perMinute = options.perMinute ?? 30;
  const limiter = new RateLimiterRedis({ storeClient: options.redis, keyPrefix: `${options.prefix}single-checks`, points: perMinute, duration: 60 });

  router.post('/verify', async (req, res) => {
    const { email } = parseInput(VerifyBody, req.body ?? {}, 'body');
    const verifier = options.verifier;
    if (!verifier) throw new HttpError(503, 'VERIFY_DISABLED', 'single-address checks are not available in this deployment (no engine configured)');
    try {
      await limiter.consume(req.ip ?? 'unknown');
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      res.set('Retry-After', String(wait));
      throw new HttpError(429, 'TOO_MANY_CHECKS', `at most ${perMinute} single checks a minute: try again in ${wait} s, or clean a file for many addresses`);
    }
    let verification: Verification;
    try {
      verification = await verifier.verify(email);
    } catch (error) {
      throw engineRefusal(error, res);
    }
    res.json(explainResult(verification));
  });

  return router;
}

function engineRefusal(error: unknown, res: { set(name: string, value: string): unknown }): unknown {
  if (error instanceof EngineAuthError) return new HttpError(502, 'ENGINE_UNAUTHORIZED', 'the engine refused the hub\'s API key: check ENGINE_API_KEY');
  if (error instanceof EngineQuotaError) {
    res.set('Retry-After', String(Math.max(1, Math.ceil(error.waitMs() / 1000))));
    return new HttpError(503, 'ENGINE_QUOTA_EXCEEDED', `the engine's monthly quota is used up until ${new Date(error.resetAt).toISOString()}: buy a credit pack or upgrade the plan`);
  }
  if (error instanceof EngineRateLimitError) {
    const wait = Math.max(1, Math.ceil(error.waitMs() / 1000));
    res.set('Retry-After', String(wait));
    return new HttpError(503, 'ENGINE_RATE_LIMITED', `the engine's rate limit is reached: try again in ${wait} s`);
  }
  return error;
}
