import { Router } from 'express';
import { z } from 'zod';
import { ACCURACY_WINDOWS } from '@verify-hub/core';
import type { AccuracyService } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';

const Connection = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, 'must be a connection id').optional();
const AccuracyQuery = z.strictObject({
  days: z.enum(ACCURACY_WINDOWS.map(String) as [string, ...string[]], { error: `must be one of ${ACCURACY_WINDOWS.join(', ')}` }).default('30'),
  connection: Connection,
});
const ReadBody = z.strictObject({ connection: Connection });

/**
 * How verify-hub's verdicts held up on the customer's own sends (under /api): the report over every
 * connection and per connection for the last 30 or 90 days, and a read of the platforms' bounces now.
 */
export function accuracyRoutes(accuracy: AccuracyService | undefined): Router {
  const router = Router();
  const service = (): AccuracyService => {
    if (!accuracy) throw new HttpError(503, 'ACCURACY_DISABLED', 'the accuracy report is not available in this deployment');
    return accuracy;
  };

  router.get('/accuracy', async (req, res) => {
    const { days, connection } = parseInput(AccuracyQuery, req.query, 'query');
    res.json(await service().accuracy(Number(days), connection));
  });

  router.post('/accuracy/read', async (req, res) => {
    const { connection } = parseInput(ReadBody, req.body ?? {}, 'body');
    res.json({ read: await service().readBounces(connection) });
  });

  return router;
}
