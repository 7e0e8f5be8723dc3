import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { normalizeEmail, type CredentialThrottle, type Logger, type Verifier } from '@verify-hub/core';
import { engineAnswer } from './answer';
import { EXTERNAL_SERVICES_DESCRIPTION_PATH, externalServicesDescription } from './external-services';
import { IdempotencyStore } from './idempotency';
import type { KeyRecord, KeyStore } from './key-store';
import type { EngineMetrics } from './metrics';
import { postmanCollection, type PostmanCollection } from './postman';
import type { AccountRateLimiter } from './rate-limit';

export interface EngineAppDeps {
  verifier: Verifier;
  store: KeyStore;
  rateLimiter: AccountRateLimiter;
  /** Every key check goes through it: wrong keys counted per client address and in all, in Redis. */
  throttle: CredentialThrottle;
  metrics: EngineMetrics;
  redis: Redis;
  /** Answers kept by `Idempotency-Key`; without it the header is ignored. */
  idempotency?: IdempotencyStore;
  /** Reported by /healthz (for example the LocalEngine's `dnsUnavailable`). */
  dnsUnavailable?: () => boolean;
  logger?: Logger;
}

/** A key taken for a new request: its billed answer is kept under it, or it is let go. */
interface IdempotencyClaimed {
  keep(answer: Record<string, unknown>): Promise<void>;
  release(): Promise<void>;
}

export const OPENAPI_PATH = join(__dirname, '..', '..', 'openapi.yaml');

const MAX_EMAIL_LENGTH = 320;

/** The credential name wrong keys are counted under by the throttle (every key of this engine together). */
export const ENGINE_KEY_CREDENTIAL = 'engine-api-key';

/** Epoch seconds, the form of `X-RateLimit-Reset` this engine sends (core accepts all three forms). */
const epochSeconds = (ms: number) => String(Math.ceil(ms / 1000));

/**
 * The engine's HTTP API (DESIGN.md §1): `GET /api/v1/verify` behind `X-API-Key`, per-account rate limit
 * and monthly quota with `X-RateLimit-*` headers on every authenticated answer, `/openapi.yaml` (and its
 * verify operation for Salesforce External Services, `/openapi.external-services.json`) and the
 * Postman collection made from it (`/postman.json`), `/healthz` and `/metrics`. Every answer is described
 * by openapi.yaml, and the engine tests validate each one they get against it.
 */
export function createEngineApp(deps: EngineAppDeps): express.Express {
  const { verifier, store, rateLimiter, throttle, metrics, redis, logger } = deps;
  const openapi = readFileSync(OPENAPI_PATH, 'utf8');
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
    const requestId = randomUUID();
    res.set('X-Request-Id', requestId);
    res.on('finish', () => metrics.requests.inc({ route: routeLabel(req), status: String(res.statusCode) }));
    next();
  });

  app.get('/healthz', async (_req, res) => {
    const redisOk = await redis.ping().then(() => true, () => false);
    res.status(redisOk ? 200 : 503).json({ status: redisOk ? 'ok' : 'degraded', redis: redisOk ? 'ok' : 'down', dns: deps.dnsUnavailable?.() ? 'unavailable' : 'ok' });
  });

  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(openapi);
  });

  // The verify operation as Salesforce External Services registers it (a Flow action): see external-services.ts.
  const externalServices = externalServicesDescription(openapi);
  app.get(EXTERNAL_SERVICES_DESCRIPTION_PATH, (_req, res) => {
    res.json(externalServices);
  });

  // Generated from the description at the first request, then kept (the converter takes a few hundred ms).
  let collection: Promise<PostmanCollection> | undefined;
  app.get('/postman.json', async (_req, res) => {
    collection ??= postmanCollection(openapi);
    try {
      res.json(await collection);
    } catch (error) {
      collection = undefined;
      throw error;
    }
  });

  app.get('/api/v1/verify', async (req, res) => {
    const presented = req.get('x-api-key');
    const attempt = presented ? await throttle.attempt(req.ip, ENGINE_KEY_CREDENTIAL, 'engine API') : undefined;
    if (attempt && !attempt.allowed) {
      // Before the key is looked at, so a locked-out address learns nothing, not even with the right key.
      // Busy (this address's key checks under way stayed at its limit) is a short rate limit, not a lock-out: clients wait out X-RateLimit-Reset and go on.
      const code = attempt.refused === 'busy' ? 'RATE_LIMITED' : 'TOO_MANY_ATTEMPTS';
      metrics.rejected.inc({ code });
      const resetAt = Date.now() + attempt.retryAfterSeconds * 1000;
      res.set({ 'Retry-After': String(attempt.retryAfterSeconds), 'X-RateLimit-Limit': String(throttle.limits.perAddress), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': epochSeconds(resetAt) });
      const error = attempt.refused === 'busy' ? `Busy: too many requests from this address under way at once; try again in ${attempt.retryAfterSeconds} s` : `Too many requests with a wrong API key from this address: try again in ${attempt.retryAfterSeconds} s`;
      res.status(429).json({ error, code });
      return;
    }
    const checked = await store.check(presented).catch(async (error: unknown) => {
      await attempt?.succeeded(); // not compared (the key store failed): not a guess, and no longer under way
      throw error;
    });
    // Only a key that does not exist is a guess; a revoked one is a client that has not been told yet.
    if (attempt) await (checked.kind === 'unknown' ? attempt.failed() : attempt.succeeded());
    if (checked.kind !== 'valid') {
      metrics.rejected.inc({ code: 'UNAUTHORIZED' });
      res.status(401).json({ error: 'Invalid, revoked or missing API key (send it in the X-API-Key header)', code: 'UNAUTHORIZED' });
      return;
    }
    await verifyForAccount(req, res, checked.record);
  });

  async function verifyForAccount(req: Request, res: Response, key: KeyRecord): Promise<void> {
    // The same figures as the hub's usage page (KeyStore.accountUsage serves both).
    const usage = await store.accountUsage(key.account);
    const limits = { ratePerSecond: usage.ratePerSecond, monthlyQuota: usage.monthlyQuota };
    const used = usage.used;
    const rate = await rateLimiter.consume(key.account, limits.ratePerSecond);
    const quotaReset = usage.resetsAt;
    res.set({
      'X-RateLimit-Limit': String(rate.limit),
      'X-RateLimit-Remaining': String(rate.remaining),
      'X-RateLimit-Reset': epochSeconds(rate.resetAt),
      'X-Quota-Limit': String(usage.monthlyQuota),
      'X-Quota-Remaining': String(usage.remaining),
      'X-Quota-Reset': epochSeconds(quotaReset),
    });
    if (!rate.allowed) {
      metrics.rejected.inc({ code: 'RATE_LIMITED' });
      res.set('Retry-After', String(Math.max(1, Math.ceil((rate.resetAt - Date.now()) / 1000))));
      res.status(429).json({ error: `Rate limit of ${rate.limit} requests per second exceeded`, code: 'RATE_LIMITED' });
      return;
    }
    const email = req.query.email;
    const problem = emailProblem(email);
    if (problem !== null || typeof email !== 'string') {
      metrics.rejected.inc({ code: 'INVALID_REQUEST' });
      res.status(400).json({ error: `email: ${problem ?? 'must be a string'}`, code: 'INVALID_REQUEST', field: 'email' });
      return;
    }
    const normalized = normalizeEmail(email);
    const claim = await claimIdempotencyKey(req, res, key.account, normalized.ok ? normalized.normalized : email);
    if (claim === 'answered') return;
    let billed = false;
    try {
      billed = await answerVerification(res, key, email, normalized.ok, limits, used, quotaReset, claim);
    } finally {
      // Only a billed answer is kept under its key: after anything else, asking again verifies afresh.
      if (claim && !billed) await claim.release().catch(() => undefined);
    }
  }

  /**
   * The `Idempotency-Key` gate (a verify-hub extension; see IdempotencyStore). 'answered' when this
   * request was answered here (a replay, or a 400/409/422 naming the header); else the claim taken, if any.
   */
  async function claimIdempotencyKey(req: Request, res: Response, account: string, email: string): Promise<'answered' | IdempotencyClaimed | undefined> {
    const idempotencyKey = req.get('idempotency-key');
    const idempotency = deps.idempotency;
    if (idempotencyKey === undefined || !idempotency) return undefined;
    const refuse = (status: number, code: string, error: string) => {
      metrics.rejected.inc({ code });
      res.status(status).json({ error: `Idempotency-Key: ${error}`, code, field: 'Idempotency-Key' });
      return 'answered' as const;
    };
    if (!IdempotencyStore.isValidKey(idempotencyKey)) return refuse(400, 'INVALID_REQUEST', 'must be 1-255 visible ASCII characters');
    const claim = await idempotency.claim(account, idempotencyKey, email);
    switch (claim.kind) {
      case 'new':
        return {
          keep: (answer) => idempotency.keep(account, idempotencyKey, email, answer),
          release: () => idempotency.release(account, idempotencyKey),
        };
      case 'replay':
        // Answered and billed before (its client may have died waiting): the same answer, not billed again.
        metrics.rejected.inc({ code: 'IDEMPOTENT_REPLAY' });
        res.set('Idempotent-Replayed', 'true').json(claim.answer);
        return 'answered';
      case 'in_progress':
        res.set('Retry-After', '1');
        return refuse(409, 'IDEMPOTENCY_KEY_IN_USE', 'a request under this key is still being answered; try again shortly');
      case 'other_address':
        return refuse(422, 'IDEMPOTENCY_KEY_REUSED', 'already used for another address');
    }
  }

  async function answerVerification(
    res: Response,
    key: KeyRecord,
    email: string,
    billable: boolean,
    limits: { monthlyQuota: number },
    used: number,
    quotaReset: number,
    claimed: IdempotencyClaimed | undefined,
  ): Promise<boolean> {
    const reserved = billable ? await store.reserveCredit(key.account, limits.monthlyQuota) : 0;
    if (reserved === null) {
      metrics.rejected.inc({ code: 'QUOTA_EXCEEDED' });
      // The quota's own limit and reset, so a client that reads only X-RateLimit-* waits until the month turns.
      res.set({ 'X-RateLimit-Limit': String(limits.monthlyQuota), 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': epochSeconds(quotaReset), 'X-Quota-Remaining': '0' });
      res.status(429).json({ error: `Monthly quota of ${limits.monthlyQuota} verifications used up; it resets on ${new Date(quotaReset).toISOString()}`, code: 'QUOTA_EXCEEDED' });
      return false;
    }
    metrics.inFlight.inc();
    const stopTimer = metrics.latency.startTimer();
    try {
      const verification = await verifier.verify(email);
      // Unknown is never billed; so are answers rejected before any check that costs (reserved is 0 then).
      if (reserved && !verification.billable) await store.refundCredit(key.account);
      const remaining = Math.max(0, limits.monthlyQuota - (reserved && verification.billable ? reserved : used));
      res.set('X-Quota-Remaining', String(remaining));
      metrics.verifications.inc({ risk: verification.risk });
      const answer = engineAnswer(verification);
      const billed = Boolean(reserved) && verification.billable;
      if (billed) await claimed?.keep(answer);
      res.json(answer);
      return billed;
    } catch (error) {
      if (reserved) await store.refundCredit(key.account).catch(() => undefined);
      metrics.errors.inc();
      logger?.error({ err: error, account: key.account }, 'verification failed');
      res.status(500).json({ error: 'Verification failed inside the engine', code: 'ENGINE_ERROR' });
      return false;
    } finally {
      stopTimer();
      metrics.inFlight.dec();
    }
  }

  app.use((_req, res) => {
    res.status(404).json({ error: 'Not found', code: 'NOT_FOUND' });
  });
  app.use((error: Error, _req: Request, res: Response, _next: express.NextFunction) => {
    metrics.errors.inc();
    logger?.error({ err: error }, 'engine request failed');
    if (!res.headersSent) res.status(500).json({ error: 'Internal error', code: 'ENGINE_ERROR' });
  });
  return app;
}

/**
 * Why the `email` query parameter cannot be verified (400), or null. An address that is there but not
 * valid is not a bad request: it is answered 200, `invalid` / `syntax`, and not billed.
 */
function emailProblem(email: unknown): string | null {
  if (email === undefined) return 'required';
  if (Array.isArray(email)) return `give one address, not ${email.length}`;
  if (typeof email !== 'string') return 'must be a string';
  if (email.trim() === '') return 'required (it is empty)';
  if (email.length > MAX_EMAIL_LENGTH) return `longer than ${MAX_EMAIL_LENGTH} characters`;
  return null;
}

function routeLabel(req: Request): string {
  return ['/api/v1/verify', '/healthz', '/metrics', '/openapi.yaml', EXTERNAL_SERVICES_DESCRIPTION_PATH, '/postman.json'].includes(req.path) ? req.path : 'other';
}
