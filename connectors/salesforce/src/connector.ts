import type { ConnectionRecord, Connector, ConnectorDeps, Contact, ContactResult, DisconnectReport, Page, PlatformContext, SchemaReport, Scope, WriteOptions, WriteReport } from '@verify-hub/core';
import { ensureChangeEventSelection, type RealTimeReport } from './cdc-setup';
import type { SalesforceEnvironment } from './environment';
import { salesforceError } from './errors';
import { oauth2 } from './oauth';
import { SalesforcePuller } from './pull';
import { ensureSalesforceSchema } from './schema';
import { SalesforceSession } from './session';
import { readCredentials, type SalesforceSettings } from './settings';
import { readPlan } from './soql';
import { SalesforceWriter } from './write';

/**
 * Salesforce calls under way at once for one org, shared by every worker: far below the org's 25
 * concurrent long-running requests, and Salesforce has no per-second limit (its limit is the daily allocation).
 */
const MAX_CONCURRENT = 10;

/**
 * One Salesforce org as a verify-hub `Connector`. The host hands it its validated settings and
 * environment, writes a page in the platform's batches (`writeBatchSize`) and tries a batch once more
 * on a transient failure: this class only reads pages, maps results to fields and sends them. Every
 * call goes through the pipeline's limiter, shared by every worker.
 */
export class SalesforceConnector implements Connector {
  readonly platform = 'salesforce';
  /** The signed-in org (instance_url, API version, refresh): the seam background tasks (Change Data Capture) use. */
  readonly session: SalesforceSession;
  private readonly puller: SalesforcePuller;
  private readonly writer: SalesforceWriter;

  constructor(
    connection: ConnectionRecord,
    deps: ConnectorDeps,
    readonly settings: SalesforceSettings,
    environment: SalesforceEnvironment,
  ) {
    const limiter = deps.limiter({ key: `salesforce:${settings.orgId}`, maxConcurrent: MAX_CONCURRENT });
    this.session = new SalesforceSession(settings, readCredentials(connection), { environment, limiter, saveCredentials: (credentials) => deps.saveCredentials(credentials) });
    this.puller = new SalesforcePuller(this.session, settings);
    this.writer = new SalesforceWriter(this.session, settings);
  }

  checkScope(scope: Scope): void {
    readPlan(scope, this.settings.objects);
  }

  /** The custom fields on Contact and Lead and their permission set (schema.ts); cheap when all are there. */
  ensureSchema(): Promise<SchemaReport> {
    return ensureSalesforceSchema(this.session);
  }

  /**
   * Real time as `verify-hub salesforce setup` sets it up (cdc-setup.ts): the org's edition, and Contact
   * and Lead (the connection's objects) selected for Change Data Capture. Not part of a run's set-up.
   */
  ensureRealTime(): Promise<RealTimeReport> {
    return ensureChangeEventSelection(this.session, this.settings.objects);
  }

  pull(scope: Scope, cursor?: string): Promise<Page> {
    return this.puller.pull(readPlan(scope, this.settings.objects), cursor);
  }

  /** The records the scope reads, counted by Salesforce (one `COUNT()` query per object). */
  estimateTotal(scope: Scope): Promise<number> {
    return this.puller.count(readPlan(scope, this.settings.objects));
  }

  /** The records as stored now: a replayed write and a change event compare with these. */
  pullByIds(ids: string[]): Promise<Contact[]> {
    return this.puller.byIds(ids);
  }

  write(results: ContactResult[], options: WriteOptions): Promise<WriteReport> {
    return this.writer.write(results, options);
  }

  /**
   * Revokes the connection's refresh token (web-server flow), so the org no longer trusts the hub.
   * The fields, their values and the permission set stay: they are the org's data.
   */
  async disconnect(): Promise<DisconnectReport> {
    const notes = ['the verify-hub fields on Contact and Lead, their values and the Verify_Hub_Fields permission set stay in the org (remove them in Setup if wanted)'];
    const token = this.session.refreshToken;
    if (!token) return { deleted: [], notes: [...notes, 'a JWT connection has no refresh token to revoke: remove the user from the External Client App to stop it'] };
    try {
      await oauth2({ loginUrl: this.settings.loginUrl }).revokeToken(token);
      return { deleted: ["the connection's Salesforce refresh token (revoked)"], notes };
    } catch (error) {
      const mapped = salesforceError(error);
      return { deleted: [], notes: [...notes, `the refresh token could not be revoked (${mapped instanceof Error ? mapped.message : 'no answer'}): it may already be revoked`] };
    }
  }
}

/**
 * The signed-in session of a stored Salesforce connection, for a module's background task (Change
 * Data Capture's streaming client): the same connection, limiter and token refresh the runs use.
 */
export async function openSalesforceSession(context: Pick<PlatformContext, 'openConnector'>, connectionId: string): Promise<SalesforceSession> {
  const connector = await context.openConnector(connectionId);
  if (!(connector instanceof SalesforceConnector)) throw new Error(`${connectionId} is not a Salesforce connection`);
  return connector.session;
}
