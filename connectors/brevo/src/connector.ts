import {
  createLocalLimiter,
  InputError,
  platformLogger,
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
import { BrevoSdk, type BrevoLimiters } from './api';
import { BrevoApi, CONTACTS_PAGE_SIZE, type BrevoContact } from './brevo-api';
import { currentAttributes } from './mapping';
import { BREVO_LIMITS } from './rate-window';
import { ensureAttributes, ensureList } from './schema';
import { BrevoSettings } from './settings';
import { isHubWebhookFor } from './webhook';
import { writeBatch } from './writer';

/** What a scope reads: every contact, one list, one segment, or every contact changed since a time. */
type Target = { kind: 'all' } | { kind: 'list'; listId: number } | { kind: 'segment'; segmentId: number } | { kind: 'changed-since'; since: Date };

const positiveId = (value: string | undefined, what: string) => {
  const id = Number(value);
  if (!value || !Number.isSafeInteger(id) || id <= 0) throw new InputError('scope', `${what} must be a number, as Brevo shows it (${what === 'list' ? 'Contacts > Lists' : 'Contacts > Segments'})`);
  return id;
};

/** A scope as what to read; an InputError naming `scope` when Brevo cannot read it. */
export function resolveBrevoScope(scope: Scope): Target {
  if (scope.kind === 'all' && scope.value === undefined) return { kind: 'all' };
  if (scope.kind === 'list') return { kind: 'list', listId: positiveId(scope.value, 'list') };
  if (scope.kind === 'segment') return { kind: 'segment', segmentId: positiveId(scope.value, 'segment') };
  if (scope.kind === 'changed-since') {
    const since = new Date(scope.value ?? '');
    if (Number.isNaN(since.getTime())) throw new InputError('scope', 'changed-since needs an ISO time, like changed-since:2026-11-01T00:00:00Z');
    return { kind: 'changed-since', since };
  }
  throw new InputError('scope', 'Brevo reads all, list:<id>, segment:<id> or changed-since:<ISO time>');
}

export function checkBrevoScope(scope: Scope): void {
  resolveBrevoScope(scope);
}

const asContact = (contact: BrevoContact): Contact => ({
  id: String(contact.id),
  email: contact.email ?? '',
  current: currentAttributes(contact.attributes),
  status: contact.emailBlacklisted ? 'blocklisted' : 'subscribed',
});

/** Brevo's published limits as the pipeline's shared limiters (one key per organisation and budget). */
export function brevoLimiters(deps: ConnectorDeps, account: string): BrevoLimiters {
  return {
    // A tenth of a second of margin: a call started on the window's edge may reach Brevo a little later than the one before it.
    contacts: deps.limiter({ key: `brevo:${account}:contacts`, maxConcurrent: BREVO_LIMITS.contacts.perSecond, perInterval: { count: BREVO_LIMITS.contacts.perSecond, intervalMs: 1_100 } }),
    contactsHour: deps.limiter({ key: `brevo:${account}:contacts-hour`, perInterval: { count: BREVO_LIMITS.contacts.perHour, intervalMs: 3_600_000 } }),
    // Not paced by the shared limiter, which spaces calls evenly (100 an hour would be one every 36 s, a
    // disconnect's two calls a minute apart): these calls are few (webhook registration, an import's status
    // at most once a minute), and Brevo's x-sib-ratelimit-* headers close the budget when it runs out.
    other: deps.limiter({ key: `brevo:${account}:other`, maxConcurrent: 2 }),
  };
}

/**
 * One Brevo organisation as a verify-hub `Connector`, on the official SDK. The host hands it its
 * validated settings, writes a page in batches of `writeBatchSize` and tries a batch once more on a
 * transient failure: this class reads pages, maps results to attributes and sends them.
 */
export class BrevoConnector implements Connector {
  readonly platform = 'brevo';
  readonly api: BrevoApi;
  private listIdKnown?: number;

  constructor(
    readonly connection: ConnectionRecord,
    deps: ConnectorDeps,
    readonly settings: BrevoSettings,
    apiBase: string,
  ) {
    const logger = platformLogger(deps.logger, 'brevo', connection.id);
    this.api = new BrevoApi(new BrevoSdk(String(connection.credentials.apiKey ?? ''), apiBase, brevoLimiters(deps, settings.account), logger));
    this.listIdKnown = settings.listId;
  }

  checkScope(scope: Scope): void {
    resolveBrevoScope(scope);
  }

  /** The attributes verify-hub writes and the dedicated list imports go to; idempotent. */
  async ensureSchema(): Promise<SchemaReport> {
    const report: SchemaReport = { created: [], existing: [], problems: [] };
    await ensureAttributes(this.api, report);
    if (this.settings.writeMode === 'import') this.listIdKnown = await ensureList(this.api, this.settings.listName, this.listIdKnown, report);
    return report;
  }

  /** The dedicated list's id: from the settings, else found (or made) once per connector. */
  async dedicatedList(): Promise<number> {
    this.listIdKnown ??= await ensureList(this.api, this.settings.listName, undefined, { created: [], existing: [], problems: [] });
    return this.listIdKnown;
  }

  async estimateTotal(scope: Scope): Promise<number | undefined> {
    return (await this.page(resolveBrevoScope(scope), 0, 1)).count;
  }

  private page(target: Target, offset: number, limit = CONTACTS_PAGE_SIZE) {
    return this.api.contactsPage({
      offset,
      limit,
      ...(target.kind === 'list' ? { listId: target.listId } : {}),
      ...(target.kind === 'segment' ? { segmentId: target.segmentId } : {}),
      ...(target.kind === 'changed-since' ? { modifiedSince: target.since.toISOString() } : {}),
    });
  }

  /** A page of 1,000 contacts (Brevo's most), by offset; blocklisted contacts and those without an address are skipped and counted. */
  async pull(scope: Scope, cursor?: string): Promise<Page> {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new InputError('cursor', 'must be an offset (a whole number)');
    const page = await this.page(resolveBrevoScope(scope), offset);
    const contacts: Contact[] = [];
    const skipped: Record<string, number> = {};
    for (const contact of page.contacts) {
      const reason = !contact.email ? 'no_email' : contact.emailBlacklisted ? 'blocklisted' : undefined;
      if (reason) skipped[reason] = (skipped[reason] ?? 0) + 1;
      else contacts.push(asContact(contact));
    }
    const seen = offset + page.contacts.length;
    const more = page.contacts.length === CONTACTS_PAGE_SIZE && (page.count === undefined || seen < page.count);
    return { contacts, ...(more ? { next: String(seen) } : {}), skipped };
  }

  /** Contacts by id, or by address (a webhook names a contact by address); missing and blocklisted ones are left out. */
  async pullByIds(ids: string[]): Promise<Contact[]> {
    const numeric = ids.filter((id) => /^\d+$/.test(id)).map(Number);
    const found = await this.api.contactsByIds(numeric);
    for (const address of ids.filter((id) => id.includes('@'))) {
      try {
        found.push(await this.api.contact(address));
      } catch (error) {
        if ((error as { status?: number }).status !== 404) throw error;
      }
    }
    return found.filter((c) => c.email && !c.emailBlacklisted).map(asContact);
  }

  write(results: ContactResult[], options: WriteOptions): Promise<WriteReport> {
    return writeBatch(this.api, this.settings, () => this.dedicatedList(), results, options);
  }

  /** Deletes the marketing webhooks that post to this connection's address on the hub; others are left alone. */
  async disconnect(): Promise<DisconnectReport> {
    const ours = (await this.api.marketingWebhooks()).filter((hook) => isHubWebhookFor(this.connection.id, hook.url));
    for (const hook of ours) await this.api.deleteWebhook(hook.id);
    return {
      deleted: ours.length ? [`${ours.length} Brevo webhook${ours.length === 1 ? '' : 's'}`] : [],
      notes: ['the verify-hub list and the EV_* attributes stay in Brevo (they hold your results); delete them in Brevo if you no longer want them'],
    };
  }
}

/** A connector for one-off calls outside the pipeline (connect, setup): in-process limiters, nothing to save. */
export function oneOffConnector(record: ConnectionRecord, apiBase: string): BrevoConnector {
  const settings = BrevoSettings.parse(record.settings ?? {});
  return new BrevoConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined }, settings, apiBase);
}
