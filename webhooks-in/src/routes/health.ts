import { Router } from 'express';
import type { Redis } from 'ioredis';

/** Resolves to the value, or to `fallback` after `ms` (a readiness probe must answer even when Redis hangs). */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise.catch(() => fallback), timeout]).finally(() => clearTimeout(timer));
}

export interface HealthOptions {
  redis: Redis;
  workersRunning?: () => boolean | Promise<boolean>;
  /** Set while shutting down: readiness fails so load balancers stop sending work. */
  isClosing: () => boolean;
  timeoutMs?: number;
}

/** `/healthz`: the process answers. `/readyz`: Redis answers PING and the workers run (503 naming what is not). */
export function healthRoutes(options: HealthOptions): Router {
  const router = Router();
  const timeoutMs = options.timeoutMs ?? 1000;

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const [redis, workers] = await Promise.all([
      within(options.redis.ping().then((pong) => pong === 'PONG'), timeoutMs, false),
      options.workersRunning ? within(Promise.resolve().then(options.workersRunning), timeoutMs, false) : Promise.resolve(undefined),
    ]);
    const checks: Record<string, boolean> = { redis };
    if (workers !== undefined) checks.workers = workers;
    if (options.isClosing()) checks.accepting = false;
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
  });

  return router;
}
