import { randomUUID } from 'node:crypto';
import { InputError, parseScope, type ConnectionStore, type SchemaReport } from '@verify-hub/core';
import { FileConnector, type FileConnectorOptions } from '@verify-hub/connector-file';
import { describeCron, parseCron, previewCron, type ConnectionOperations, type CronPreview, type RunEstimate, type ScheduleService, type ScheduleView, type StartRunRequest } from '@verify-hub/sync-jobs';

/**
 * ConnectionOperations over a connection store: a file estimate reads the stored upload with the file
 * connector (its contacts and unique addresses; nothing is cached here), ensureSchema answers what a
 * test sets. Every request is recorded with the email column stored at that moment.
 */
export class FakeOperations implements ConnectionOperations {
  readonly estimates: { request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>; column?: string }[] = [];
  readonly schemas: string[] = [];
  schemaReport: SchemaReport = { created: ['ev_risk'], existing: ['ev_score'], problems: [] };
  schemaError?: Error;

  constructor(private readonly connections: ConnectionStore) {}

  async estimate(request: Pick<StartRunRequest, 'platform' | 'connectionId' | 'scope' | 'options'>): Promise<RunEstimate> {
    const record = await this.connections.get(request.connectionId ?? '');
    if (!record) throw new InputError('connectionId', `no connection ${request.connectionId}`);
    const settings = record.settings as unknown as FileConnectorOptions;
    this.estimates.push({ request, column: settings.column });
    const connector = new FileConnector(settings);
    const emails = new Set<string>();
    let cursor: string | undefined;
    let contacts = 0;
    do {
      const page = await connector.pull(parseScope(request.scope), cursor);
      contacts += page.contacts.length;
      for (const c of page.contacts) emails.add(c.email.toLowerCase());
      cursor = page.next;
    } while (cursor);
    return { contacts, unique: emails.size, cached: 0, estimatedCredits: emails.size };
  }

  async ensureSchema(connectionId: string): Promise<SchemaReport> {
    this.schemas.push(connectionId);
    if (this.schemaError) throw this.schemaError;
    return this.schemaReport;
  }
}

/**
 * Schedules in memory, with the real store's reading of patterns and zones (sync-jobs' parseCron,
 * describeCron, previewCron: InputError naming `cron`, `timezone`), without BullMQ.
 */
export class FakeScheduleService implements ScheduleService {
  readonly schedules = new Map<string, ScheduleView>();

  private check(cron: string, timezone?: string): void {
    parseCron(cron, timezone);
  }

  async listSchedules(): Promise<ScheduleView[]> {
    return [...this.schedules.values()];
  }

  async saveSchedule(input: { id?: string; cron: string; timezone?: string; request: StartRunRequest }): Promise<ScheduleView> {
    this.check(input.cron, input.timezone);
    const view: ScheduleView = { id: input.id ?? `schedule-${randomUUID()}`, cron: input.cron, timezone: input.timezone, request: input.request, paused: false, description: describeCron(input.cron) };
    this.schedules.set(view.id, view);
    return view;
  }

  private set(id: string, paused: boolean): ScheduleView {
    const found = this.schedules.get(id);
    if (!found) throw new InputError('id', `no schedule ${id}`);
    const view = { ...found, paused };
    this.schedules.set(id, view);
    return view;
  }

  async pauseSchedule(id: string): Promise<ScheduleView> {
    return this.set(id, true);
  }

  async resumeSchedule(id: string): Promise<ScheduleView> {
    return this.set(id, false);
  }

  async removeSchedule(id: string): Promise<boolean> {
    return this.schedules.delete(id);
  }

  previewCron(cron: string, timezone?: string, count = 5): CronPreview {
    return previewCron(cron, timezone, count);
  }
}
