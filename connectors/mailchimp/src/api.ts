import type { z } from 'zod';
import { performance } from 'node:perf_hooks';
import { backoffDelay, logPlatformCall, logPlatformFailure, sleep, type CallLimiter, type Logger } from '@verify-hub/core';
import type { MailchimpAuth, ResolvedSettings } from './connection-settings';
import { MailchimpError, mailchimpErrorFrom, shouldRetry } from './errors';
import {
  AudienceSchema,
  AudiencesPageSchema,
  BatchStatusSchema,
  BatchSubscribeResultSchema,
  MemberSchema,
  MembersPageSchema,
  MergeFieldSchema,
  MergeFieldsPageSchema,
  NoContentSchema,
  WebhookSchema,
  WebhooksSchema,
  type AudienceSummary,
  type BatchStatus,
  type BatchSubscribeResult,
  type Member,
  type MergeField,
  type Webhook,
  type WebhookSettings,
} from './responses';
import { CampaignsPageSchema, SentToPageSchema, type Campaign, type SentTo } from './report-responses';

/**
 * The parts of the official SDK's `ApiClient` this connector uses. The package's default export is
 * one process-wide instance whose `setConfig` replaces the config for everyone, so each connection
 * builds its own `ApiClient` (its API groups, `lists` and `batches`, are bound to that client).
 */
interface SdkClient {
  basePath: string;
  timeout: number;
  setConfig(config: { apiKey?: string; accessToken?: string }): void;
  /** Every API group's request goes through it: `path` is the template (`/lists/{list_id}/members`). */
  callApi(path: string, method: string, ...rest: unknown[]): Promise<{ response: SdkAnswer }>;
  lists: {
    getList(listId: string, opts: object): Promise<unknown>;
    getListMembersInfo(listId: string, opts: object): Promise<unknown>;
    getListMember(listId: string, hash: string, opts: object): Promise<unknown>;
    getSegmentMembersList(listId: string, segmentId: string, opts: object): Promise<unknown>;
    getListMergeFields(listId: string, opts: object): Promise<unknown>;
    addListMergeField(listId: string, body: object): Promise<unknown>;
    batchListMembers(listId: string, body: object, opts: object): Promise<unknown>;
    updateListMemberTags(listId: string, hash: string, body: object): Promise<unknown>;
    updateListMember(listId: string, hash: string, body: object, opts: object): Promise<unknown>;
    deleteListMember(listId: string, hash: string): Promise<unknown>;
    getAllLists(opts: object): Promise<unknown>;
    getListWebhooks(listId: string): Promise<unknown>;
    createListWebhook(listId: string, body: object): Promise<unknown>;
    deleteListWebhook(listId: string, webhookId: string): Promise<unknown>;
  };
  batches: {
    start(body: object): Promise<unknown>;
    status(batchId: string, opts: object): Promise<unknown>;
  };
  campaigns: {
    list(opts: object): Promise<unknown>;
  };
  reports: {
    getCampaignRecipients(campaignId: string, opts: object): Promise<unknown>;
  };
}
/** The slice of superagent's response (or of its error's `response`) the call log reads. */
interface SdkAnswer {
  status?: number;
  headers?: Record<string, string | undefined>;
}
type SdkClientConstructor = new () => SdkClient;

/** Mailchimp's id of a request, on every answer: what its support asks for. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** Loaded with the first connection: the SDK and its HTTP stack are not held by a process that never calls Mailchimp. */
let sdkClient: SdkClientConstructor | undefined;
const ApiClient = (): SdkClientConstructor => (sdkClient ??= require('@mailchimp/mailchimp_marketing/src/ApiClient') as SdkClientConstructor);

export type CallKind = 'read' | 'write' | 'poll' | 'archive';

export interface TagChangeBody {
  tags: { name: string; status: 'active' | 'inactive' }[];
  is_syncing: boolean;
}

export interface BatchSubscribeMember {
  email_address: string;
  /** Only for an address that is not in the audience; existing members keep their status. */
  status_if_new: 'unsubscribed';
  merge_fields: Record<string, string | number>;
}

export interface BatchOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params?: Record<string, string>;
  /** JSON text, as `/batches` wants it. */
  body?: string;
  operation_id: string;
}

/**
 * One connection's Mailchimp client: its own SDK `ApiClient`, every call through the shared
 * limiter (10 concurrent connections per key), and the one retry loop of this package: 429, 5xx,
 * timeouts and network errors of reads, polls and setup calls are retried with exponential backoff and
 * jitter (outside the limiter, so a waiting retry holds no connection); a contact write is sent once,
 * since the pipeline's write layer is where a write is tried again. Answers are validated with zod.
 */
export class MailchimpApi {
  private readonly client: SdkClient;
  /** Calls made, by kind (after retries count as calls too): for logs and benches. */
  readonly calls: Record<CallKind, number> = { read: 0, write: 0, poll: 0, archive: 0 };

  constructor(
    auth: MailchimpAuth,
    private readonly settings: ResolvedSettings,
    private readonly limiter: CallLimiter,
    private readonly logger?: Logger,
  ) {
    this.client = new (ApiClient())();
    this.client.setConfig(auth.kind === 'apiKey' ? { apiKey: auth.apiKey } : { accessToken: auth.accessToken });
    this.client.basePath = settings.apiBase;
    this.client.timeout = settings.timeoutMs;
    if (logger) this.logEachRequest(logger);
  }

  /**
   * One debug line per request, written around the SDK's `callApi` of this connection's own client:
   * the path is the SDK's template, so no audience member's hash and no key is in it.
   */
  private logEachRequest(logger: Logger): void {
    const send = this.client.callApi.bind(this.client);
    this.client.callApi = async (path, method, ...rest) => {
      const started = performance.now();
      const logAnswer = (answer: SdkAnswer | undefined) =>
        logPlatformCall(logger, { method, path, status: answer?.status, durationMs: performance.now() - started, requestId: answer?.headers?.[REQUEST_ID_HEADER] });
      try {
        const answered = await send(path, method, ...rest);
        logAnswer(answered.response);
        return answered;
      } catch (error) {
        logAnswer((error as { response?: SdkAnswer }).response);
        throw error;
      }
    };
  }

  /**
   * The one retry loop: 429, 5xx, timeouts and network trouble again after a backoff; anything else at
   * once. A contact write (`once`) is tried once here: the pipeline's write layer tries it again.
   */
  private async withRetry<T>(operation: string, run: () => Promise<T>, once = false): Promise<T> {
    const { attempts, baseMs, maxMs } = this.settings.retry;
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (thrown) {
        const error = mailchimpErrorFrom(thrown, operation);
        if (once || !shouldRetry(error) || attempt + 1 >= attempts) {
          logPlatformFailure(this.logger, error, `Mailchimp ${operation}`);
          throw error;
        }
        await sleep(backoffDelay(attempt, { baseMs, maxMs }));
      }
    }
  }

  private async call<S extends z.ZodType>(operation: string, kind: CallKind | 'contact-write', schema: S, fn: (client: SdkClient) => Promise<unknown>): Promise<z.infer<S>> {
    const counted = kind === 'contact-write' ? 'write' : kind;
    const raw = await this.withRetry(
      operation,
      () =>
        this.limiter.schedule(() => {
          this.calls[counted]++;
          return fn(this.client);
        }),
      kind === 'contact-write',
    );
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new MailchimpError(`Mailchimp ${operation} answered unexpectedly: ${issue.path.join('.') || 'body'} ${issue.message}`);
    }
    return parsed.data;
  }

  /**
   * Downloads a `/batches` results archive. The URL is a pre-signed storage link, not the API: it gets
   * no credentials and does not hold one of the key's 10 connections.
   */
  downloadArchive(url: string): Promise<Buffer> {
    return this.withRetry('download batch results', async () => {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.settings.timeoutMs) });
      if (!response.ok) throw { status: response.status, response: { text: await response.text().catch(() => '') } };
      this.calls.archive++;
      return Buffer.from(await response.arrayBuffer());
    });
  }

  membersPage(listId: string, opts: { count: number; offset: number; fields: string[]; sinceLastChanged?: string; status?: string }): Promise<{ members: Member[]; total_items: number }> {
    const query: Record<string, unknown> = { count: opts.count, offset: opts.offset, fields: opts.fields };
    if (opts.status) query.status = opts.status;
    if (opts.sinceLastChanged) query.since_last_changed = opts.sinceLastChanged;
    return this.call('list members', 'read', MembersPageSchema, (c) => c.lists.getListMembersInfo(listId, query));
  }

  segmentMembersPage(listId: string, segmentId: string, opts: { count: number; offset: number; fields: string[] }): Promise<{ members: Member[]; total_items: number }> {
    // Cleaned and unsubscribed members are asked for so that they can be counted as skipped.
    const query = { count: opts.count, offset: opts.offset, fields: opts.fields, include_cleaned: true, include_unsubscribed: true };
    return this.call('segment members', 'read', MembersPageSchema, (c) => c.lists.getSegmentMembersList(listId, segmentId, query));
  }

  /** The audience's id and name (a run over it is named after it). */
  audience(listId: string): Promise<{ id: string; name: string }> {
    return this.call('get audience', 'read', AudienceSchema, (c) => c.lists.getList(listId, { fields: ['id', 'name'] }));
  }

  member(listId: string, hash: string, fields: string[]): Promise<Member> {
    return this.call('get member', 'read', MemberSchema, (c) => c.lists.getListMember(listId, hash, { fields }));
  }

  async mergeFields(listId: string): Promise<MergeField[]> {
    const all: MergeField[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await this.call('list merge fields', 'read', MergeFieldsPageSchema, (c) =>
        c.lists.getListMergeFields(listId, { count: 1000, offset, fields: ['merge_fields.merge_id', 'merge_fields.tag', 'merge_fields.name', 'merge_fields.type', 'total_items'] }),
      );
      all.push(...page.merge_fields);
      if (page.merge_fields.length === 0 || all.length >= page.total_items) return all;
    }
  }

  async webhooks(listId: string): Promise<Webhook[]> {
    return (await this.call('list webhooks', 'read', WebhooksSchema, (c) => c.lists.getListWebhooks(listId))).webhooks;
  }

  createWebhook(listId: string, webhook: WebhookSettings & { url: string }): Promise<Webhook> {
    return this.call('create webhook', 'write', WebhookSchema, (c) => c.lists.createListWebhook(listId, webhook));
  }

  /** Every audience of the account (id, name, member count), a page of 1,000 at a time. */
  async audiences(): Promise<AudienceSummary[]> {
    const all: AudienceSummary[] = [];
    for (let offset = 0; ; offset += 1000) {
      const page = await this.call('list audiences', 'read', AudiencesPageSchema, (c) =>
        c.lists.getAllLists({ count: 1000, offset, fields: ['lists.id', 'lists.name', 'lists.stats.member_count', 'total_items'] }),
      );
      all.push(...page.lists);
      if (page.lists.length === 0 || all.length >= page.total_items) return all;
    }
  }

  async deleteWebhook(listId: string, webhookId: string): Promise<void> {
    await this.call('delete webhook', 'write', NoContentSchema, (c) => c.lists.deleteListWebhook(listId, webhookId));
  }

  addMergeField(listId: string, field: { tag: string; name: string; type: 'text' | 'number' | 'date'; public: boolean; help_text?: string; options?: object }): Promise<MergeField> {
    return this.call('create merge field', 'write', MergeFieldSchema, (c) => c.lists.addListMergeField(listId, field));
  }

  batchSubscribe(listId: string, members: BatchSubscribeMember[]): Promise<BatchSubscribeResult> {
    return this.call('batch update members', 'contact-write', BatchSubscribeResultSchema, (c) => c.lists.batchListMembers(listId, { members, update_existing: true }, {}));
  }

  updateTags(listId: string, hash: string, body: TagChangeBody): Promise<unknown> {
    return this.call('update member tags', 'contact-write', NoContentSchema, (c) => c.lists.updateListMemberTags(listId, hash, body));
  }

  unsubscribe(listId: string, hash: string): Promise<unknown> {
    return this.call('unsubscribe member', 'contact-write', NoContentSchema, (c) => c.lists.updateListMember(listId, hash, { status: 'unsubscribed' }, {}));
  }

  /** DELETE on a member archives it in Mailchimp (it can be restored); permanent deletion is never called. */
  archive(listId: string, hash: string): Promise<unknown> {
    return this.call('archive member', 'contact-write', NoContentSchema, (c) => c.lists.deleteListMember(listId, hash));
  }

  startBatch(operations: BatchOperation[]): Promise<BatchStatus> {
    return this.call('start batch', 'contact-write', BatchStatusSchema, (c) => c.batches.start({ operations }));
  }

  batchStatus(batchId: string): Promise<BatchStatus> {
    return this.call('batch status', 'poll', BatchStatusSchema, (c) => c.batches.status(batchId, {}));
  }

  /** Sent campaigns of an audience, oldest first, sent after `sinceSendTime` (a page of up to 1,000). */
  sentCampaigns(listId: string, opts: { sinceSendTime: string; count: number; offset: number }): Promise<{ campaigns: Campaign[]; total_items: number }> {
    const query = {
      list_id: listId,
      status: 'sent',
      since_send_time: opts.sinceSendTime,
      sort_field: 'send_time',
      sort_dir: 'ASC',
      count: opts.count,
      offset: opts.offset,
      fields: ['campaigns.id', 'campaigns.status', 'campaigns.send_time', 'campaigns.recipients.list_id', 'total_items'],
    };
    return this.call('list campaigns', 'read', CampaignsPageSchema, (c) => c.campaigns.list(query));
  }

  /** A page of a sent campaign's recipients, each `sent`, or bounced `hard` or `soft`, with the merge fields named. */
  sentTo(campaignId: string, opts: { count: number; offset: number; mergeFields: string[] }): Promise<{ sent_to: SentTo[]; total_items: number }> {
    const fields = ['sent_to.email_id', 'sent_to.email_address', 'sent_to.status', ...opts.mergeFields.map((f) => `sent_to.merge_fields.${f}`), 'total_items'];
    return this.call('campaign recipients', 'read', SentToPageSchema, (c) => c.reports.getCampaignRecipients(campaignId, { count: opts.count, offset: opts.offset, fields }));
  }

}
