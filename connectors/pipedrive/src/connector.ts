import {
  type ConnectionRecord,
  type Connector,
  type ConnectorDeps,
  type Contact,
  type ContactResult,
  type DisconnectReport,
  type Page,
  type SchemaReport,
  type Scope,
  type WriteOptions,
  type WriteReport,
} from '@verify-hub/core';
import { PipedriveApi } from './api';
import { connectionAuth } from './auth';
import type { PipedriveEnvironment } from './environment';
import { resolveFields } from './fields';
import { personContacts, personIdOf } from './mapping';
import { checkPipedriveScope, personsQuery } from './scope';
import type { FieldKeys, PipedriveSettings } from './settings';
import { removeWebhooks } from './webhook-registration';
import { PersonWriter } from './write';

/**
 * Calls under way at once per connection. Pipedrive limits starts per 2 s, not concurrency: enough
 * in flight to use the allowance at a few hundred ms a call (an eighth of it), 8 to 64.
 */
export const maxConcurrentCalls = (allowance: number) => Math.min(64, Math.max(8, Math.ceil(allowance / 8)));
/** Burst window length Pipedrive documents for every plan. */
export const BURST_WINDOW_MS = 2_000;

/** The shared limiter's allowance per 2 s: 90 % of what Pipedrive said, so a UI user of the same token keeps some. */
export const burstAllowance = (burstLimit: number) => Math.max(1, Math.floor(burstLimit * 0.9));

/**
 * One Pipedrive company as a verify-hub `Connector`. The host validates its settings, writes a page in
 * batches of `writeBatchSize` and tries a batch once more on a transient failure: this class reads
 * persons a page at a time, maps results to person fields and sends them (one PATCH a person).
 */
export class PipedriveConnector implements Connector {
  readonly platform = 'pipedrive';
  readonly api: PipedriveApi;
  private keys?: FieldKeys;
  private readonly writer: PersonWriter;

  constructor(
    private readonly connection: ConnectionRecord,
    deps: ConnectorDeps,
    private readonly settings: PipedriveSettings,
    env: PipedriveEnvironment,
  ) {
    const limiter = deps.limiter({
      key: `pipedrive:${settings.companyId}:${settings.userId}`,
      maxConcurrent: maxConcurrentCalls(burstAllowance(settings.burstLimit)),
      perInterval: { count: burstAllowance(settings.burstLimit), intervalMs: BURST_WINDOW_MS },
    });
    this.api = new PipedriveApi(env.PIPEDRIVE_API_BASE ?? settings.apiDomain, connectionAuth(connection, env, deps.saveCredentials), limiter);
    this.keys = settings.fieldKeys;
    this.writer = new PersonWriter(this.api, () => this.fieldKeys());
  }

  checkScope(scope: Scope): void {
    checkPipedriveScope(scope);
  }

  /** Finds (or, with `create`, makes) the person fields; the keys are kept for this connector's writes. */
  async resolveFields(create: boolean): Promise<{ keys?: FieldKeys; report: SchemaReport }> {
    const resolved = await resolveFields(this.api, this.keys, create);
    if (resolved.keys) this.keys = resolved.keys;
    return resolved;
  }

  /** At a run's start: the fields are made when missing (idempotent; one read when all are there). */
  async ensureSchema(): Promise<SchemaReport> {
    return (await this.resolveFields(true)).report;
  }

  /** The kept keys, else found by name (a connector a worker built for a chunk, before any setup here). */
  async fieldKeys(): Promise<FieldKeys> {
    if (this.keys) return this.keys;
    const { keys, report } = await this.resolveFields(false);
    if (!keys) throw new Error(report.problems.join('; '));
    return keys;
  }

  async pull(scope: Scope, cursor?: string): Promise<Page> {
    const query = personsQuery(scope, this.settings.filterId);
    const keys = await this.fieldKeys();
    const page = await this.api.persons({ ...query, ...(cursor ? { cursor } : {}), customFields: fieldKeyList(keys) });
    const contacts = page.persons.flatMap((person) => personContacts(person, keys));
    const noEmail = page.persons.filter((person) => !(person.emails ?? []).some((e) => e.value?.trim())).length;
    return { contacts, ...(page.next ? { next: page.next } : {}), ...(noEmail ? { skipped: { no_email: noEmail } } : {}) };
  }

  /** The contacts of `ids` as stored now (a replayed write and a webhook compare with these); a person's id is its primary address. */
  async pullByIds(ids: string[]): Promise<Contact[]> {
    const keys = await this.fieldKeys();
    const personIds = [...new Set(ids.map(personIdOf))].filter((id) => Number.isInteger(id) && id > 0);
    const persons = await this.api.personsByIds(personIds, fieldKeyList(keys));
    const wanted = new Set(ids);
    return persons.flatMap((person) => personContacts(person, keys)).filter((contact) => wanted.has(contact.id));
  }

  write(results: ContactResult[], options: WriteOptions): Promise<WriteReport> {
    return this.writer.write(results, options);
  }

  /** Removes the webhooks setup registered; the person fields and their values stay (they are the user's data). */
  async disconnect(): Promise<DisconnectReport> {
    return removeWebhooks(this.api, this.settings.webhookIds ?? []);
  }

  get connectionId(): string {
    return this.connection.id;
  }
}

const fieldKeyList = (keys: FieldKeys) => [keys.risk, keys.score, keys.reason, keys.checkedAt];
