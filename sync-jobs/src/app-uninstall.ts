import type { ConnectionStore, Logger } from '@verify-hub/core';
import type { RunService, ScheduleService } from './contracts';
import { disconnectConnection, type DisconnectOutcome } from './disconnect';

/**
 * A platform app uninstalled from an account: the connector says so with an error carrying
 * `appUninstalled` (a platform whose API says so; HubSpot's does not: it reports the uninstall as an event), or an event source reports it
 * (HubSpot's app lifecycle event, by webhook or journal). Either way the connection is disconnected as `verify-hub disconnect`
 * does it, except on the platform side: the app's access is gone, so nothing there can be deleted.
 */
export function isAppUninstalled(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { appUninstalled?: unknown }).appUninstalled === true;
}

/** Why a run of an uninstalled app's connection ended. */
export const UNINSTALLED_RUN_REASON = 'cancelled: the app was uninstalled from the account, so its connection was disconnected (install it again and connect to verify this list)';

export interface UninstallServices {
  connections: ConnectionStore;
  runs: RunService;
  schedules?: ScheduleService;
  logger: Logger;
}

/** Disconnects `connectionId` after an uninstall; undefined when it was not (or no longer) stored. Says what it did in one log line. */
export async function disconnectUninstalled(connectionId: string, services: UninstallServices): Promise<DisconnectOutcome | undefined> {
  if (!(await services.connections.get(connectionId))) return undefined;
  const outcome = await disconnectConnection(connectionId, { ...services, operations: undefined, cancelReason: UNINSTALLED_RUN_REASON });
  const note = 'the app was uninstalled from the account, so nothing was deleted on the platform';
  const done = { ...outcome, notes: [...outcome.notes, note], summary: `${outcome.summary} The app was uninstalled from the account: nothing to delete there.` };
  services.logger.warn({ connectionId, summary: done.summary }, 'app uninstalled: connection disconnected');
  return done;
}
