import { InputError, VerifyHubError, type ConnectionStore, type DisconnectReport, type Logger } from '@verify-hub/core';
import type { ConnectionOperations, RunService, RunStatus, ScheduleService } from './contracts';

const UNFINISHED: RunStatus[] = ['queued', 'running', 'paused'];
/** How many runs of each unfinished status are looked through. */
const UNFINISHED_RUNS = 1000;

export interface DisconnectOutcome {
  deleted: string;
  removedSchedules: string[];
  cancelledRuns: string[];
  /** What the connector deleted on the platform ("1 Mailchimp webhook"). */
  platformDeleted: string[];
  notes: string[];
  /** "Deleted: the stored token, 2 schedules, 1 Mailchimp webhook; cancelled 1 run." */
  summary: string;
}

/**
 * Disconnects a stored connection (the dashboard's delete, `verify-hub disconnect`). What uses it goes
 * first: a schedule left behind would start a failing run at every firing, and a run under way would
 * go on reading and writing the platform. Then the platform side, while the token still works (its
 * webhooks); a platform that cannot be reached does not keep the connection: the summary says what
 * to remove by hand. The stored token goes last.
 */
export async function disconnectConnection(
  id: string,
  services: { connections: ConnectionStore; runs: RunService; schedules?: ScheduleService; operations?: ConnectionOperations; logger: Logger; cancelReason?: string },
): Promise<DisconnectOutcome> {
  const removedSchedules: string[] = [];
  for (const schedule of (await services.schedules?.listSchedules()) ?? []) {
    if (schedule.request.connectionId === id && (await services.schedules!.removeSchedule(schedule.id))) removedSchedules.push(schedule.id);
  }
  const cancelledRuns: string[] = [];
  for (const status of UNFINISHED) {
    for (const run of await services.runs.list({ status, limit: UNFINISHED_RUNS })) {
      if (run.connectionId !== id) continue;
      try {
        cancelledRuns.push((await services.runs.cancel(run.id, services.cancelReason)).id);
      } catch (error) {
        if (!(error instanceof InputError)) throw error; // it finished meanwhile
      }
    }
  }
  let platform: DisconnectReport = { deleted: [] };
  try {
    platform = (await services.operations?.disconnectPlatform?.(id)) ?? platform;
  } catch (error) {
    const why = error instanceof VerifyHubError ? error.message : 'the platform did not answer';
    platform = { deleted: [], notes: [`could not delete what the hub created on the platform (${why}): remove it there`] };
    services.logger.warn({ connectionId: id, err: why }, 'disconnect: platform cleanup failed');
  }
  await services.connections.delete(id);
  const summary = disconnectSummary({ schedules: removedSchedules.length, platform, cancelledRuns: cancelledRuns.length });
  return { deleted: id, removedSchedules, cancelledRuns, platformDeleted: platform.deleted, notes: platform.notes ?? [], summary };
}

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "Deleted: the stored token, 2 schedules, 1 Mailchimp webhook; cancelled 1 run." then the platform's notes. */
export function disconnectSummary(done: { schedules: number; platform: DisconnectReport; cancelledRuns: number }): string {
  const deleted = ['the stored token', ...(done.schedules ? [counted(done.schedules, 'schedule', 'schedules')] : []), ...done.platform.deleted];
  const cancelled = done.cancelledRuns ? `; cancelled ${counted(done.cancelledRuns, 'run', 'runs')}` : '';
  const notes = (done.platform.notes ?? []).map((note) => ` ${note.charAt(0).toUpperCase()}${note.slice(1)}.`).join('');
  return `Deleted: ${deleted.join(', ')}${cancelled}.${notes}`;
}
