import { randomBytes } from 'node:crypto';
import { InputError } from '@verify-hub/core';
import type { JobSchedulerJson, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { ScheduleService, ScheduleView, StartRunRequest } from './contracts';
import { DEFAULT_TIMEZONE, checkTimezone, describeCron, parseCron, previewCron } from './cron-preview';
import type { Keys } from './keys';
import type { ScheduledJobData } from './queues';

/** A schedule as kept in Redis (one field of the `<prefix>:schedules` hash, JSON). */
interface ScheduleDefinition {
  id: string;
  cron: string;
  timezone: string;
  request: StartRunRequest;
  paused: boolean;
}

/** The job name of a run started by a schedule. */
export const SCHEDULED_JOB = 'scheduled';

const ID_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * Recurring runs. BullMQ job schedulers cannot be paused, so the definitions live in one Redis hash
 * under the pipeline's prefix and the job scheduler (id = schedule id, on the `runs` queue) exists
 * only while the schedule is active: pausing removes it, resuming upserts it again. A `scheduled`
 * job that fires while its schedule is paused (a pause racing a firing) starts nothing
 * (`shouldStart`). Job schedulers made before definitions were kept are listed too, and adopted
 * (given a definition) on their first pause or save.
 */
export class ScheduleStore implements ScheduleService {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
    private readonly queue: Queue,
    /** The same checks as starting a run (platform registered, connection stored, scope, options). */
    private readonly checkRequest: (request: StartRunRequest) => Promise<void>,
  ) {}

  async listSchedules(): Promise<ScheduleView[]> {
    const [definitions, schedulers] = await Promise.all([this.definitions(), this.queue.getJobSchedulers(0, -1, true)]);
    const byId = new Map(schedulers.map((s) => [s.key, s]));
    const views = definitions.map((d) => view(d, byId.get(d.id)));
    const known = new Set(definitions.map((d) => d.id));
    for (const s of schedulers) {
      const adopted = adopt(s);
      if (adopted && !known.has(s.key)) views.push(view(adopted, s));
    }
    return views.sort((a, b) => a.id.localeCompare(b.id));
  }

  async saveSchedule(input: { id?: string; cron: string; timezone?: string; request: StartRunRequest }): Promise<ScheduleView> {
    if (input.id !== undefined && !ID_PATTERN.test(input.id)) throw new InputError('id', 'must be 1 to 100 letters, digits, dots, dashes or underscores');
    const timezone = input.timezone ?? DEFAULT_TIMEZONE;
    checkTimezone(timezone);
    parseCron(input.cron ?? '', timezone);
    if (!input.request || typeof input.request !== 'object') throw new InputError('request', 'is required: { platform, connectionId, scope }');
    await this.checkRequest(input.request);
    const id = input.id ?? newScheduleId(input.request.platform);
    // Saving a paused schedule changes it and keeps it paused.
    const paused = (await this.definition(id))?.paused ?? false;
    const definition: ScheduleDefinition = { id, cron: input.cron, timezone, request: copyRequest(input.request), paused };
    await this.store(definition);
    if (!paused) await this.upsertScheduler(definition);
    return this.mustView(id);
  }

  async pauseSchedule(id: string): Promise<ScheduleView> {
    const definition = await this.mustDefinition(id);
    // The definition first: a firing between the two steps sees it paused and starts nothing.
    await this.store({ ...definition, paused: true });
    await this.queue.removeJobScheduler(id);
    return this.mustView(id);
  }

  async resumeSchedule(id: string): Promise<ScheduleView> {
    const definition = await this.mustDefinition(id);
    await this.upsertScheduler(definition);
    await this.store({ ...definition, paused: false });
    return this.mustView(id);
  }

  async removeSchedule(id: string): Promise<boolean> {
    const removedDefinition = (await this.redis.hdel(this.keys.schedules(), id)) === 1;
    const removedScheduler = await this.queue.removeJobScheduler(id);
    return removedDefinition || removedScheduler;
  }

  previewCron(cron: string, timezone?: string, count?: number) {
    return previewCron(cron, timezone, count);
  }

  /** What a firing of scheduler `id` starts: the schedule's request, or nothing while it is paused. */
  async requestToStart(id: string | undefined, fallback: ScheduledJobData): Promise<StartRunRequest | undefined> {
    const definition = id === undefined ? undefined : await this.definition(id);
    if (!definition) return fallback;
    return definition.paused ? undefined : definition.request;
  }

  private async upsertScheduler(definition: ScheduleDefinition): Promise<void> {
    const data: ScheduledJobData = definition.request;
    await this.queue.upsertJobScheduler(
      definition.id,
      { pattern: definition.cron, tz: definition.timezone },
      // Completed firings are not kept forever (a schedule every minute would fill Redis).
      { name: SCHEDULED_JOB, data, opts: { removeOnComplete: { count: 100 }, removeOnFail: { age: 7 * 86_400 } } },
    );
  }

  private async definitions(): Promise<ScheduleDefinition[]> {
    return Object.values(await this.redis.hgetall(this.keys.schedules())).map((json) => JSON.parse(json) as ScheduleDefinition);
  }

  private async definition(id: string): Promise<ScheduleDefinition | undefined> {
    const json = await this.redis.hget(this.keys.schedules(), id);
    return json ? (JSON.parse(json) as ScheduleDefinition) : undefined;
  }

  private async mustDefinition(id: string): Promise<ScheduleDefinition> {
    const definition = await this.definition(id);
    if (definition) return definition;
    const scheduler = await this.queue.getJobScheduler(id);
    const adopted = scheduler && adopt(scheduler);
    if (!adopted) throw new InputError('id', `no schedule "${id}"`);
    return adopted;
  }

  private async store(definition: ScheduleDefinition): Promise<void> {
    await this.redis.hset(this.keys.schedules(), definition.id, JSON.stringify(definition));
  }

  private async mustView(id: string): Promise<ScheduleView> {
    const definition = await this.mustDefinition(id);
    return view(definition, definition.paused ? undefined : await this.queue.getJobScheduler(id));
  }
}

function view(definition: ScheduleDefinition, scheduler: JobSchedulerJson | undefined): ScheduleView {
  const v: ScheduleView = {
    id: definition.id,
    cron: definition.cron,
    timezone: definition.timezone,
    request: definition.request,
    paused: definition.paused,
    description: describeCron(definition.cron),
  };
  if (!definition.paused && scheduler?.next !== undefined) v.next = scheduler.next;
  return v;
}

/** A cron job scheduler of ours that has no definition yet (made by an older version). */
function adopt(scheduler: JobSchedulerJson): ScheduleDefinition | undefined {
  const request = scheduler.template?.data as StartRunRequest | undefined;
  if (scheduler.name !== SCHEDULED_JOB || !scheduler.pattern || !request?.platform) return undefined;
  return { id: scheduler.key, cron: scheduler.pattern, timezone: scheduler.tz ?? DEFAULT_TIMEZONE, request, paused: false };
}

function copyRequest(request: StartRunRequest): StartRunRequest {
  const copy: StartRunRequest = { platform: request.platform, scope: request.scope };
  if (request.connectionId) copy.connectionId = request.connectionId;
  if (request.options) copy.options = request.options;
  return copy;
}

/** `<platform>-<8 hex>`: letters, digits and dashes only. */
function newScheduleId(platform: string): string {
  const slug = platform.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'schedule';
  return `${slug}-${randomBytes(4).toString('hex')}`;
}
