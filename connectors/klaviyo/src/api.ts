import type { AccountsApi, ListsApi, ProfilesApi, SegmentsApi, Session } from 'klaviyo-api';
import { VerifyHubError, logPlatformCall, logPlatformFailure, type CallLimiter, type Logger } from '@verify-hub/core';
import type { z } from 'zod';
import { klaviyoErrorFrom } from './errors';
import type { KlaviyoEndpoint } from './rate-limits';
import { klaviyoSdk } from './sdk';
import {
  AccountsAnswer,
  ImportErrorsPage,
  ImportJobAnswer,
  NamedPage,
  ProfilePage,
  SuppressJobAnswer,
  nextCursor,
  type ImportError,
  type ImportJob,
  type SuppressJob,
} from './responses';

/** The most profiles one page of any profiles endpoint answers (`page[size]` <= 100). */
export const PROFILES_PAGE_SIZE = 100;
/** Only what the connector reads of a profile: its address, its custom properties, when it changed. */
const PROFILE_FIELDS: ('email' | 'properties' | 'updated')[] = ['email', 'properties', 'updated'];

/** A profile's changes for one bulk import job: the profile by id (and address), the properties to set. */
export interface ProfileUpdate {
  id: string;
  email: string;
  properties: Record<string, unknown>;
}

/** The SDK's answer: its `response.data` is the JSON as received, which is what gets validated. */
type SdkAnswer = { response: { data: unknown; status?: number } };

/**
 * Klaviyo's API for one connection, on the official SDK (`klaviyo-api`, which pins the API revision it
 * sends): each call waits its turn in its endpoint's limiters, its answer is validated with zod, and a
 * failure becomes core's kinds in `klaviyoErrorFrom`. Nothing here retries: the host does.
 */
export class KlaviyoApi {
  private readonly accounts: AccountsApi;
  private readonly profiles: ProfilesApi;
  private readonly lists: ListsApi;
  private readonly segments: SegmentsApi;

  constructor(
    session: Session,
    apiBase: string,
    private readonly limit: (endpoint: KlaviyoEndpoint) => CallLimiter,
    /** The connection's logger: one debug line per call (method and path only), a warning per failure. */
    private readonly logger?: Logger,
  ) {
    const base = apiBase.replace(/\/+$/, '');
    const { AccountsApi, ListsApi, ProfilesApi, SegmentsApi } = klaviyoSdk();
    this.accounts = Object.assign(new AccountsApi(session), { basePath: base });
    this.profiles = Object.assign(new ProfilesApi(session), { basePath: base });
    this.lists = Object.assign(new ListsApi(session), { basePath: base });
    this.segments = Object.assign(new SegmentsApi(session), { basePath: base });
  }

  private async call<T>(endpoint: KlaviyoEndpoint, operation: string, send: () => Promise<SdkAnswer>, schema: z.ZodType<T>): Promise<T> {
    let answer: SdkAnswer;
    const [method = 'GET', path = operation] = operation.split(' ');
    const started = performance.now();
    try {
      answer = await this.limit(endpoint).schedule(send);
    } catch (error) {
      const status = (error as { response?: { status?: number } }).response?.status;
      logPlatformCall(this.logger, { method, path, status, durationMs: performance.now() - started, requestId: undefined });
      const failure = klaviyoErrorFrom(error, operation);
      logPlatformFailure(this.logger, failure, operation);
      throw failure;
    }
    logPlatformCall(this.logger, { method, path, status: answer.response.status, durationMs: performance.now() - started, requestId: undefined });
    const parsed = schema.safeParse(answer.response.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new VerifyHubError(`Klaviyo answered ${operation} not as documented: ${issue.path.join('.')} ${issue.message}`);
    }
    return parsed.data;
  }

  /** The account the credentials belong to: its id and organisation name. */
  async account(): Promise<{ id: string; name?: string }> {
    const answer = await this.call('accounts', 'GET /api/accounts', () => this.accounts.getAccounts({ fieldsAccount: ['contact_information.organization_name'] }), AccountsAnswer);
    const account = answer.data[0]!;
    return { id: account.id, name: account.attributes?.contact_information?.organization_name ?? undefined };
  }

  /** All profiles, or those updated after `since` (oldest change first, so a reader can keep its place). */
  async profilePage(options: { cursor?: string; updatedAfter?: string; size?: number }): Promise<{ page: ProfilePage; next?: string }> {
    const page = await this.call(
      'profiles',
      'GET /api/profiles',
      () =>
        this.profiles.getProfiles({
          fieldsProfile: PROFILE_FIELDS,
          pageSize: options.size ?? PROFILES_PAGE_SIZE,
          ...(options.cursor ? { pageCursor: options.cursor } : {}),
          ...(options.updatedAfter ? { filter: `greater-than(updated,${options.updatedAfter})`, sort: 'updated' as const } : {}),
        }),
      ProfilePage,
    );
    return { page, next: nextCursor(page) };
  }

  /** The profiles of a list or segment (these endpoints cannot filter by `updated`). */
  async memberPage(kind: 'list' | 'segment', id: string, cursor?: string): Promise<{ page: ProfilePage; next?: string }> {
    const options = { fieldsProfile: PROFILE_FIELDS, pageSize: PROFILES_PAGE_SIZE, ...(cursor ? { pageCursor: cursor } : {}) };
    const page =
      kind === 'list'
        ? await this.call('listProfiles', 'GET /api/lists/{id}/profiles', () => this.lists.getProfilesForList(id, options), ProfilePage)
        : await this.call('segmentProfiles', 'GET /api/segments/{id}/profiles', () => this.segments.getProfilesForSegment(id, options), ProfilePage);
    return { page, next: nextCursor(page) };
  }

  /** Up to 100 profiles by id, in one call (`any(id,[...])`); missing ones are left out. */
  async profilesById(ids: string[]): Promise<ProfilePage> {
    const quoted = ids.map((id) => JSON.stringify(id)).join(',');
    return this.call('profiles', 'GET /api/profiles', () => this.profiles.getProfiles({ fieldsProfile: PROFILE_FIELDS, pageSize: PROFILES_PAGE_SIZE, filter: `any(id,[${quoted}])` }), ProfilePage);
  }

  /** The account's lists or segments, a page at a time (names for the scope picker). */
  async namedPage(kind: 'list' | 'segment', cursor?: string): Promise<{ items: { id: string; name: string }[]; next?: string }> {
    const options = cursor ? { pageCursor: cursor } : {};
    const page =
      kind === 'list'
        ? await this.call('lists', 'GET /api/lists', () => this.lists.getLists({ ...options, fieldsList: ['name'] }), NamedPage)
        : await this.call('segments', 'GET /api/segments', () => this.segments.getSegments({ ...options, fieldsSegment: ['name'] }), NamedPage);
    return { items: page.data.map((item) => ({ id: item.id, name: item.attributes.name ?? item.id })), next: nextCursor(page) };
  }

  /**
   * One profile bulk import job (<= 10,000 profiles, <= 5 MB): properties only, and never a list
   * relationship (adding profiles to a list triggers its flows) nor any consent field.
   */
  async createImportJob(updates: ProfileUpdate[]): Promise<ImportJob> {
    const query = {
      data: {
        type: 'profile-bulk-import-job' as const,
        attributes: { profiles: { data: updates.map((u) => ({ type: 'profile' as const, id: u.id, attributes: { email: u.email, properties: u.properties } })) } },
      },
    };
    return (await this.call('importJobCreate', 'POST /api/profile-bulk-import-jobs', () => this.profiles.bulkImportProfiles(query), ImportJobAnswer)).data;
  }

  async importJob(id: string): Promise<ImportJob> {
    return (await this.call('importJobRead', 'GET /api/profile-bulk-import-jobs/{id}', () => this.profiles.getBulkImportProfilesJob(id), ImportJobAnswer)).data;
  }

  async importErrors(id: string, cursor?: string): Promise<{ errors: ImportError[]; next?: string }> {
    const page = await this.call(
      'importErrors',
      'GET /api/profile-bulk-import-jobs/{id}/import-errors',
      () => this.profiles.getErrorsForBulkImportProfilesJob(id, { pageSize: 100, ...(cursor ? { pageCursor: cursor } : {}) }),
      ImportErrorsPage,
    );
    return { errors: page.data, next: nextCursor(page) };
  }

  /** Klaviyo's suppression of these addresses (the user's clean action for invalid ones): no subscription is touched. */
  async createSuppressJob(emails: string[]): Promise<SuppressJob> {
    const query = {
      data: {
        type: 'profile-suppression-bulk-create-job' as const,
        attributes: { profiles: { data: emails.map((email) => ({ type: 'profile' as const, attributes: { email } })) } },
      },
    };
    return (await this.call('suppressJobCreate', 'POST /api/profile-suppression-bulk-create-jobs', () => this.profiles.bulkSuppressProfiles(query), SuppressJobAnswer)).data;
  }

  async suppressJob(id: string): Promise<SuppressJob> {
    return (await this.call('suppressJobRead', 'GET /api/profile-suppression-bulk-create-jobs/{id}', () => this.profiles.getBulkSuppressProfilesJob(id), SuppressJobAnswer)).data;
  }
}
