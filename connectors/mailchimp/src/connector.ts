import {
  createLocalLimiter,
  InputError,
  platformLogger,
  timeInWords,
  type ConnectionRecord,
  type Connector,
  type ConnectorDeps,
  type ConnectorFactory,
  type DisconnectReport,
  type Contact,
  type ContactResult,
  type Page,
  type SchemaReport,
  type Scope,
  type WriteFailure,
  type WriteOptions,
} from '@verify-hub/core';
import { MailchimpApi } from './api';
import { MailchimpBounceSource } from './bounce-source';
import { limiterKey, readAuth, readSettings, type MailchimpAuth, type MailchimpSettings, type ResolvedSettings } from './connection-settings';
import { MailchimpNotFoundError } from './errors';
import { memberFields, toContact, UNTOUCHABLE_STATUSES } from './members';
import { ensureMergeFields } from './merge-fields';
import { mailchimpTime, parseCursor, resolveScope } from './scope';
import { executePlan, type MailchimpWriteReport } from './writer';
import { subscriberHash } from './subscriber-hash';
import { isHubWebhookFor } from './webhook';
import { planWrites } from './write-plan';

/** Mailchimp's largest page of members. */
export const MEMBERS_PAGE_SIZE = 1000;

/** What `pull` puts in `Contact.payload`, so `write` knows the audience without the scope. */
interface MemberPayload {
  listId: string;
}

/**
 * A Mailchimp audience as a verify-hub `Connector`. Each instance has its own SDK client (never the
 * SDK's shared default), and every call goes through `deps.limiter({ key: mailchimp:<dc>:<key hash>,
 * maxConcurrent: 10 })`, which the sync pipeline shares between all workers.
 */
export class MailchimpConnector implements Connector {
  readonly platform = 'mailchimp';
  readonly api: MailchimpApi;
  readonly settings: ResolvedSettings;
  private readonly auth: MailchimpAuth;
  /** What Mailchimp reports of the audience's sends (bounce-source.ts); absent when the connection names no audience. */
  readonly bounces?: MailchimpBounceSource;

  constructor(
    readonly connection: ConnectionRecord,
    deps: ConnectorDeps,
  ) {
    this.auth = readAuth(connection.credentials);
    this.settings = readSettings(connection.settings, this.auth, deps.settings as MailchimpSettings | undefined);
    this.api = new MailchimpApi(this.auth, this.settings, deps.limiter({ key: limiterKey(this.auth), maxConcurrent: 10 }), platformLogger(deps.logger, 'mailchimp', connection.id));
    if (this.settings.listId) this.bounces = new MailchimpBounceSource(this.api, this.settings.listId, this.settings.names);
  }

  /**
   * Deletes the audience's webhooks that post to this connection's address on the hub (whichever
   * host and secret they carry): pasted in by the user or created through the API, they are the
   * hub's. Other webhooks of the audience are left alone.
   */
  async disconnect(): Promise<DisconnectReport> {
    const listId = this.settings.listId;
    if (!listId) return { deleted: [], notes: ['the connection names no audience: no Mailchimp webhook looked for'] };
    const ours = (await this.api.webhooks(listId)).filter((hook) => isHubWebhookFor(this.connection.id, hook.url));
    for (const hook of ours) await this.api.deleteWebhook(listId, hook.id);
    return { deleted: ours.length ? [`${ours.length} Mailchimp webhook${ours.length === 1 ? '' : 's'}`] : [] };
  }

  get dataCenter(): string {
    return this.auth.dc;
  }

  private listId(explicit?: string): string {
    const listId = explicit ?? this.settings.listId;
    if (!listId) throw new InputError('settings.listId', 'the connection names no audience (list id)');
    return listId;
  }

  /** Creates EVRISK (text), EVSCORE (number), EVDATE (text, YYYY-MM-DD) when missing. */
  ensureSchema(listId?: string): Promise<SchemaReport> {
    return ensureMergeFields(this.api, this.listId(listId), this.settings.names);
  }

  checkScope(scope: Scope): void {
    resolveScope(scope, this.settings.listId);
  }

  /** A run over this scope is named after the audience: "Newsletter", "Newsletter: segment 42", "Newsletter (changed since ...)". */
  async describeScope(scope: Scope): Promise<string | undefined> {
    const target = resolveScope(scope, this.settings.listId);
    const { name } = await this.api.audience(target.listId);
    if (target.kind === 'segment') return `${name}: segment ${target.segmentId}`;
    if (target.kind === 'changed-since') return `${name} (changed since ${timeInWords(target.since)})`;
    return name;
  }

  async pull(scope: Scope, cursor?: string): Promise<Page> {
    const target = resolveScope(scope, this.settings.listId);
    const offset = parseCursor(cursor);
    const fields = [...memberFields(this.settings.names), 'total_items'];
    const page =
      target.kind === 'segment'
        ? // Segment members come without tags: the writer falls back on the risk merge field.
          await this.api.segmentMembersPage(target.listId, target.segmentId, { count: MEMBERS_PAGE_SIZE, offset, fields: fields.filter((f) => f !== 'members.tags') })
        : await this.api.membersPage(target.listId, {
            count: MEMBERS_PAGE_SIZE,
            offset,
            fields,
            sinceLastChanged: target.kind === 'changed-since' ? mailchimpTime(new Date(target.since.getTime() - this.settings.changedSinceOverlapMs)) : undefined,
          });
    const contacts: Contact[] = [];
    const skipped: Record<string, number> = {};
    for (const member of page.members) {
      if (UNTOUCHABLE_STATUSES.has(member.status)) {
        skipped[member.status] = (skipped[member.status] ?? 0) + 1;
        continue;
      }
      contacts.push({ ...toContact(member, this.settings.names), payload: { listId: target.listId } satisfies MemberPayload });
    }
    const seen = offset + page.members.length;
    return { contacts, next: page.members.length > 0 && seen < page.total_items ? String(seen) : undefined, skipped };
  }

  /**
   * Reads members by subscriber hash (md5 of the lower-cased address), in the connection's audience,
   * or `<list_id>:<hash>` for another. Missing members, and unsubscribed, cleaned or archived ones,
   * are left out.
   */
  async pullByIds(ids: string[]): Promise<Contact[]> {
    const found = await Promise.all(
      ids.map(async (id) => {
        const colon = id.indexOf(':');
        const listId = colon < 0 ? this.listId() : id.slice(0, colon);
        const hash = colon < 0 ? id : id.slice(colon + 1);
        if (!/^[0-9a-f]{32}$/.test(hash)) throw new InputError('ids', `"${hash}" is not a subscriber hash (md5 of the lower-cased address)`);
        const member = await this.readMember(listId, hash);
        return member && !UNTOUCHABLE_STATUSES.has(member.status ?? '') ? member : undefined;
      }),
    );
    return found.filter((c): c is Contact => c !== undefined);
  }

  /** One member as a Contact, or undefined when it is not in the audience. */
  private async readMember(listId: string, hash: string): Promise<Contact | undefined> {
    try {
      const member = await this.api.member(listId, hash, memberFields(this.settings.names, ''));
      return { ...toContact(member, this.settings.names), payload: { listId } satisfies MemberPayload };
    } catch (error) {
      if (error instanceof MailchimpNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * A contact that was not read from Mailchimp (no `status`: a webhook event's fallback, an old
   * report row) is read now, so that a member who left, unsubscribed or was cleaned meanwhile is
   * never written to, and unchanged values are still skipped.
   */
  private async refreshUnread(listId: string, results: ContactResult[], failed: WriteFailure[]): Promise<ContactResult[]> {
    const refreshed = await Promise.all(
      results.map(async (result) => {
        if (result.contact.status !== undefined) return result;
        const member = await this.readMember(listId, result.contact.id || subscriberHash(result.contact.email));
        if (!member) {
          failed.push({ contactId: result.contact.id, email: result.contact.email, reason: 'member is not in the audience: nothing written', retryable: false });
          return undefined;
        }
        return { ...result, contact: member };
      }),
    );
    return refreshed.filter((r): r is ContactResult => r !== undefined);
  }

  async write(results: ContactResult[], opts: WriteOptions = {}): Promise<MailchimpWriteReport> {
    const byList = new Map<string, ContactResult[]>();
    for (const result of results) {
      const payload = result.contact.payload as Partial<MemberPayload> | undefined;
      const listId = typeof payload?.listId === 'string' ? payload.listId : this.listId();
      byList.set(listId, [...(byList.get(listId) ?? []), result]);
    }
    const total: MailchimpWriteReport = { written: 0, unchanged: [], failed: [], actions: [], changes: [], batchIds: [] };
    for (const [listId, part] of byList) {
      const readNow: WriteFailure[] = [];
      const plan = planWrites(await this.refreshUnread(listId, part, readNow), opts, this.settings.names);
      plan.refused.push(...readNow);
      const report = await executePlan(this.api, listId, plan, opts.dryRun === true, this.settings);
      total.written += report.written;
      total.unchanged.push(...report.unchanged);
      total.failed.push(...report.failed);
      total.actions!.push(...(report.actions ?? []));
      total.changes.push(...report.changes);
      total.batchIds.push(...report.batchIds);
    }
    return total;
  }
}

/** A connector for one-off calls outside the pipeline (connect, setup, the audience list): its own limiter, nothing to save. */
export const oneOffConnector = (record: ConnectionRecord) => new MailchimpConnector(record, { limiter: (spec) => createLocalLimiter(spec), saveCredentials: async () => undefined });

export const mailchimpConnectorFactory: ConnectorFactory = Object.assign((connection: ConnectionRecord, deps: ConnectorDeps) => new MailchimpConnector(connection, deps), {
  // The scope's form only: which audience `all` means is the connection's business, checked with it.
  checkScope: (scope: Scope) => void resolveScope(scope, 'connection-audience'),
});
