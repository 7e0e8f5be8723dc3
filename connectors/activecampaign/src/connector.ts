import {
  platformLogger,
  type ConnectionRecord,
  type Connector,
  type ConnectorDeps,
  type ContactResult,
  type DisconnectReport,
  type Page,
  type SchemaReport,
  type Scope,
  type WriteFailure,
  type WriteOptions,
  type WriteReport,
  type Contact,
} from '@verify-hub/core';
import { knownSchema, remember, type AccountSchema } from './account-schema';
import { parseAccountUrl } from './account-url';
import { ActivecampaignClient } from './api-client';
import type { ImportPolling } from './bulk-import';
import { apiBaseFor, tokenOf } from './connection';
import { ensureSchema } from './ensure-schema';
import type { ActivecampaignEnvironment } from './environment';
import { contactsById, countContacts, listContacts } from './list-contacts';
import { parseCursor, resolveScope } from './scope';
import type { ActivecampaignSettings } from './settings';
import { removeHubWebhooks } from './webhook-registration';
import { writeContacts, type WriteLimiters } from './write-contacts';
import { planWrites, wasRead } from './write-plan';

/**
 * The account's per-second window, with a margin: a call the limiter starts at the window's edge
 * reaches ActiveCampaign a few milliseconds later, and would make a sixth in its second.
 */
export const RATE_WINDOW_MS = 1100;

/**
 * One ActiveCampaign account as a verify-hub `Connector`. Every call goes through one limiter per
 * account (`activecampaign:<account>`, the account's requests per second, shared by every worker and
 * every key, as ActiveCampaign counts them), and bulk imports also through its per-minute import
 * limits. The host batches writes (`writeBatchSize`, 250) and tries a batch once more on a transient
 * failure: this class reads pages, plans what changed and sends it.
 */
export class ActivecampaignConnector implements Connector {
  readonly platform = 'activecampaign';
  readonly client: ActivecampaignClient;
  private readonly writeLimiters: WriteLimiters;
  private readonly schemaKey: string;
  private readonly polling: ImportPolling;

  constructor(
    readonly connection: ConnectionRecord,
    deps: ConnectorDeps,
    private readonly settings: ActivecampaignSettings,
    environment: ActivecampaignEnvironment,
  ) {
    const account = parseAccountUrl(settings.apiUrl, 'settings.apiUrl');
    const key = `activecampaign:${account.account}`;
    const baseUrl = apiBaseFor(account, environment);
    this.client = new ActivecampaignClient({
      baseUrl,
      token: tokenOf(connection),
      limiter: deps.limiter({ key, perInterval: { count: environment.ACTIVECAMPAIGN_REQUESTS_PER_SECOND, intervalMs: RATE_WINDOW_MS } }),
      logger: platformLogger(deps.logger, 'activecampaign', connection.id),
    });
    this.writeLimiters = {
      imports: deps.limiter({ key: `${key}:imports`, perInterval: { count: environment.ACTIVECAMPAIGN_IMPORTS_PER_MINUTE, intervalMs: 60_000 } }),
      singleImports: deps.limiter({ key: `${key}:single-imports`, perInterval: { count: Math.max(1, Math.floor(environment.ACTIVECAMPAIGN_IMPORTS_PER_MINUTE / 5)), intervalMs: 60_000 } }),
    };
    this.schemaKey = `${baseUrl} ${account.account}`;
    this.polling = { initialMs: environment.ACTIVECAMPAIGN_IMPORT_POLL_MS, maxMs: 15_000, timeoutMs: 15 * 60_000 };
  }

  checkScope(scope: Scope): void {
    resolveScope(scope);
  }

  /** Creates the fields (related to the connection's list, or every list) and the risk tags that are missing. */
  async ensureSchema(): Promise<SchemaReport> {
    const { report, schema } = await ensureSchema(this.client, this.settings.listId);
    remember(this.schemaKey, schema);
    return report;
  }

  private schema(): Promise<AccountSchema> {
    return knownSchema(this.schemaKey, this.client);
  }

  async pull(scope: Scope, cursor?: string): Promise<Page> {
    const target = resolveScope(scope);
    return listContacts(this.client, await this.schema(), target, parseCursor(cursor));
  }

  /** How many contacts the run will read (the dashboard's progress); undefined when ActiveCampaign does not say. */
  async estimateTotal(scope: Scope): Promise<number | undefined> {
    const total = await countContacts(this.client, resolveScope(scope));
    return total !== undefined && Number.isFinite(total) ? total : undefined;
  }

  /** The contacts as stored now (a webhook's contact, a replayed write); missing ids are left out. */
  async pullByIds(ids: string[]): Promise<Contact[]> {
    return contactsById(this.client, await this.schema(), ids);
  }

  async write(results: ContactResult[], options: WriteOptions = {}): Promise<WriteReport> {
    const schema = await this.schema();
    const { read, gone } = await this.readUnread(results, schema);
    const report = await writeContacts(this.client, this.writeLimiters, schema, planWrites(read), this.polling, { dryRun: options.dryRun === true, progress: options.progress });
    return { ...report, failed: [...gone, ...report.failed] };
  }

  /**
   * Contacts not read from ActiveCampaign (a bounce correction, an old report row: no tags known) are
   * read now, so only what changed is written and the old risk tag can be removed; one that no longer
   * exists is reported, never created by the import.
   */
  private async readUnread(results: ContactResult[], schema: AccountSchema): Promise<{ read: ContactResult[]; gone: WriteFailure[] }> {
    const unread = results.filter((r) => !wasRead(r));
    if (!unread.length) return { read: results, gone: [] };
    const now = new Map((await contactsById(this.client, schema, unread.map((r) => r.contact.id))).map((c) => [c.id, c]));
    const read: ContactResult[] = [];
    const gone: WriteFailure[] = [];
    for (const result of results) {
      if (wasRead(result)) read.push(result);
      else if (now.get(result.contact.id)?.email.toLowerCase() === result.contact.email.toLowerCase()) read.push({ ...result, contact: now.get(result.contact.id)! });
      else if (now.has(result.contact.id)) gone.push({ contactId: result.contact.id, email: result.contact.email, reason: "the contact's address changed since it was verified: nothing written", retryable: false });
      else gone.push({ contactId: result.contact.id, email: result.contact.email, reason: 'the contact is no longer in ActiveCampaign: nothing written', retryable: false });
    }
    return { read, gone };
  }

  /** Deletes the webhooks that post to this connection's address on the hub; other webhooks are left alone. */
  async disconnect(): Promise<DisconnectReport> {
    const removed = await removeHubWebhooks(this.client, this.connection.id);
    return { deleted: removed ? [`${removed} ActiveCampaign webhook${removed === 1 ? '' : 's'}`] : [] };
  }
}
