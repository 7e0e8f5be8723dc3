import { Router } from 'express';
import { z } from 'zod';
import { SchedulePresetSchema, presetToCron, type ScheduleService, type ScheduleView } from '@verify-hub/sync-jobs';
import { HttpError } from '../http-errors';
import { parseInput } from '../validate';
import { RunOptionsSchema, StartRunBody } from '../schemas';
import type { CronPreviewAnswer } from '../run-api-types';

const ScheduleIdParams = z.object({ id: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'must be a schedule id (1 to 100 letters, digits, . _ -)') });
const Cron = z.string().trim().min(1, 'is required: a preset, or a cron pattern').max(200);
const SaveScheduleBody = z.strictObject({
  id: ScheduleIdParams.shape.id.optional(),
  /** Every day / week on a day / month on a day at HH:MM; or `cron`, the advanced option. */
  preset: SchedulePresetSchema.optional(),
  cron: Cron.optional(),
  timezone: z.string().trim().min(1).max(100).optional(),
  platform: StartRunBody.shape.platform,
  connectionId: z.string({ error: 'is required: choose the connection to sync' }).min(1, 'is required: choose the connection to sync').max(200),
  scope: z.string().min(1).max(2000),
  options: RunOptionsSchema.optional(),
});
const PreviewQuery = z.strictObject({
  cron: Cron.optional(),
  every: z.string().optional(),
  weekday: z.string().optional(),
  day: z.string().optional(),
  time: z.string().optional(),
  timezone: z.string().trim().min(1).max(100).optional(),
});

/** The pattern of a preset or a typed cron: exactly one of them (InputError naming `preset.*` for a bad preset). */
function patternOf(input: { preset?: unknown; cron?: string }, where: 'body' | 'query'): string {
  if (input.preset !== undefined && input.cron !== undefined) throw new HttpError(400, 'INVALID_INPUT', `${where}.cron: give a preset or a cron pattern, not both`, `${where}.cron`);
  if (input.preset !== undefined) return presetToCron(input.preset);
  if (input.cron === undefined) throw new HttpError(400, 'INVALID_INPUT', `${where}.cron: is required: a preset (every day, week or month at a time), or a cron pattern`, `${where}.cron`);
  return input.cron;
}

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
    const { cron, timezone, every, weekday, day, time } = parseInput(PreviewQuery, req.query, 'query');
    const preset = every === undefined ? undefined : { every, time, ...(weekday === undefined ? {} : { weekday }), ...(day === undefined ? {} : { day }) };
    const pattern = patternOf({ preset, cron }, 'query');
    const preview: CronPreviewAnswer = { ...service().previewCron(pattern, timezone, 5), cron: pattern };
    res.json(preview);
  });

  router.post('/schedules', async (req, res) => {
    const body = parseInput(SaveScheduleBody, req.body ?? {}, 'body');
    const { id, cron, preset, timezone, ...request } = body;
    res.status(201).json(await service().saveSchedule({ id, cron: patternOf({ preset, cron }, 'body'), timezone, request }));
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
