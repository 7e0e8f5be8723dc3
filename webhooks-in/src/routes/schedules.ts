import { Router } from 'express';
import { z } from 'zod';
import type { ScheduleService, ScheduleView } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunOptionsSchema, StartRunBody } from '../schemas';

const ScheduleIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be a schedule id (1 to 100 letters, digits, . _ -)') });
const SaveScheduleBody = z.strictObject({
  id: ScheduleIdParams.shape.id.optional(),
  cron: z.string().trim().min(1, 'is required').max(200),
  timezone: z.string().trim().min(1).max(100).optional(),
  platform: StartRunBody.shape.platform,
  connectionId: z.string().min(1).max(200),
  scope: z.string().min(1).max(2000),
  options: RunOptionsSchema.optional(),
});
const PreviewQuery = z.strictObject({ cron: z.string().trim().min(1, 'is required').max(200), timezone: z.string().trim().min(1).max(100).optional() });

/** Recurring syncs (under /api), over the pipeline's ScheduleService; its InputErrors name `cron`, `timezone`, ... */
export function scheduleRoutes(schedules: ScheduleService | undefined): Router {
  const router = Router();
  const service = (): ScheduleService => {
    if (!schedules) throw new HttpError(503, 'SCHEDULES_DISABLED', 'schedules are not available in this deployment');
    return schedules;
  };
  const existing = async (id: string): Promise<ScheduleView> => {
    const found = (await service().listSchedules()).find((s) => s.id === id);
    if (!found) throw new HttpError(404, 'NOT_FOUND', `schedule ${id} not found`);
    return found;
  };

  router.get('/schedules', async (_req, res) => {
    res.json({ schedules: await service().listSchedules() });
  });

  // Before /schedules/:id routes, so "preview" is never read as an id.
  router.get('/schedules/preview', (req, res) => {
    const { cron, timezone } = parseInput(PreviewQuery, req.query, 'query');
    res.json(service().previewCron(cron, timezone, 5));
  });

  router.post('/schedules', async (req, res) => {
    const body = parseInput(SaveScheduleBody, req.body ?? {}, 'body');
    const { id, cron, timezone, ...request } = body;
    res.status(201).json(await service().saveSchedule({ id, cron, timezone, request }));
  });

  router.post('/schedules/:id/pause', async (req, res) => {
    const { id } = parseInput(ScheduleIdParams, req.params, 'params');
    await existing(id);
    res.json(await service().pauseSchedule(id));
  });

  router.post('/schedules/:id/resume', async (req, res) => {
    const { id } = parseInput(ScheduleIdParams, req.params, 'params');
    await existing(id);
    res.json(await service().resumeSchedule(id));
  });

  router.delete('/schedules/:id', async (req, res) => {
    const { id } = parseInput(ScheduleIdParams, req.params, 'params');
    if (!(await service().removeSchedule(id))) throw new HttpError(404, 'NOT_FOUND', `schedule ${id} not found`);
    res.status(204).end();
  });

  return router;
}
