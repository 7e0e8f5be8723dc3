import {
  DEFAULT_VERIFICATION_FIELD_NAMES,
  platformLogger,
  timeInWords,
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
} from '@verify-hub/core';
import { KlaviyoApi, PROFILES_PAGE_SIZE } from './api';
import { oauthApp, sessionOf } from './connection';
import type { KlaviyoEnvironment } from './environment';
import { storedProperties } from './mapping';
import { revokeToken } from './oauth';
import { endpointLimiters } from './rate-limits';
import type { ProfilePage } from './responses';
import { klaviyoTime, resolveScope } from './scope';
import type { KlaviyoSettings } from './settings';
import { executePlan, type KlaviyoWriteReport } from './writer';
import { planWrites } from './write-plan';

/**
 * Klaviyo pages are read 100 profiles a call (its most) and handed to the host ten at a time: one
 * chunk of up to 1,000 profiles, written back in one bulk import job, so a sync of 25,000 profiles
 * makes 250 reads and 25 jobs, not 250.
 */
export const API_PAGES_PER_CHUNK = 10;
export const CHUNK_SIZE = PROFILES_PAGE_SIZE * API_PAGES_PER_CHUNK;

const asContact = (profile: ProfilePage['data'][number]): Contact | undefined => {
  const email = profile.attributes.email?.trim();
  return email ? { id: profile.id, email, current: storedProperties(profile.attributes.properties) } : undefined;
};

/**
 * One Klaviyo account as a verify-hub `Connector`, on the official SDK with its own session (never the
 * SDK's process-wide key). The host writes a chunk in batches of `writeBatchSize` and tries a batch once
 * more on a transient failure or a short rate limit: this class reads pages, maps results to profile
 * properties and sends them. Every call waits its turn in its endpoint's burst and steady limiters,
 * shared by every worker.
 */
export class KlaviyoConnector implements Connector {
  readonly platform = 'klaviyo';
  readonly api: KlaviyoApi;

  constructor(
    readonly connection: ConnectionRecord,
    deps: ConnectorDeps,
    private readonly settings: KlaviyoSettings,
    private readonly env: KlaviyoEnvironment,
  ) {
    this.api = new KlaviyoApi(
      sessionOf(connection.credentials, env, (credentials) => deps.saveCredentials(credentials)),
      env.KLAVIYO_API_BASE,
      endpointLimiters(deps.limiter, settings.account),
      platformLogger(deps.logger, 'klaviyo', connection.id),
    );
  }

  checkScope(scope: Scope): void {
    resolveScope(scope);
  }

  /** Custom profile properties need no creation in Klaviyo: there is nothing to make, and nothing to check but the scopes (checked on connect). */
  async ensureSchema(): Promise<SchemaReport> {
    return { created: [], existing: Object.values(DEFAULT_VERIFICATION_FIELD_NAMES), problems: [] };
  }

  async describeScope(scope: Scope): Promise<string | undefined> {
    const target = resolveScope(scope);
    const account = this.settings.accountName ?? this.settings.account;
    if (target.kind === 'all') return `${account}: all profiles`;
    if (target.kind === 'changed-since') return `${account}: profiles changed since ${timeInWords(target.since)}`;
    return `${account}: ${target.kind} ${target.id}${target.since ? ` (changed since ${timeInWords(target.since)})` : ''}`;
  }

  /**
   * Up to ten pages of 100 profiles. `changed-since` asks Klaviyo for profiles updated after the time;
   * a list or segment cannot be asked that, so its members updated before the time are skipped here as
   * read (counted as `unchanged_since`), and a member whose properties already hold the verdict is
   * written nothing (the write compares with what the hub last wrote).
   */
  async pull(scope: Scope, cursor?: string): Promise<Page> {
    const target = resolveScope(scope);
    const contacts: Contact[] = [];
    const skipped: Record<string, number> = {};
    const skip = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
    let next = cursor || undefined;
    for (let read = 0; read < API_PAGES_PER_CHUNK; read++) {
      const { page, next: after } =
        target.kind === 'all' || target.kind === 'changed-since'
          ? await this.api.profilePage({ cursor: next, ...(target.kind === 'changed-since' ? { updatedAfter: klaviyoTime(target.since) } : {}) })
          : await this.api.memberPage(target.kind, target.id, next);
      for (const profile of page.data) {
        const since = target.kind !== 'all' ? target.since : undefined;
        if (since && !(Date.parse(profile.attributes.updated ?? '') > since.getTime())) skip('unchanged_since');
        else {
          const contact = asContact(profile);
          if (contact) contacts.push(contact);
          else skip('no_email');
        }
      }
      next = after;
      if (!next) break;
    }
    return { contacts, ...(next ? { next } : {}), skipped };
  }

  /** Profiles by id, 100 a call: a flow webhook's or a changed profile's values as they are now. */
  async pullByIds(ids: string[]): Promise<Contact[]> {
    const found: Contact[] = [];
    for (let i = 0; i < ids.length; i += PROFILES_PAGE_SIZE) {
      const page = await this.api.profilesById(ids.slice(i, i + PROFILES_PAGE_SIZE));
      for (const profile of page.data) {
        const contact = asContact(profile);
        if (contact) found.push(contact);
      }
    }
    return found;
  }

  write(results: ContactResult[], options: WriteOptions = {}): Promise<KlaviyoWriteReport> {
    return executePlan(this.api, planWrites(results, options), options.dryRun === true, { intervalMs: this.env.KLAVIYO_JOB_POLL_MS });
  }

  /**
   * An OAuth connection's refresh token is revoked at Klaviyo. The flow the user made in Klaviyo is
   * theirs to delete; its deliveries are refused from now on (the secret goes with the connection).
   */
  async disconnect(): Promise<DisconnectReport> {
    const notes = ['the Klaviyo flow that posts new list members to the hub is yours to delete in Klaviyo (Flows); the hub refuses its deliveries from now on'];
    const refreshToken = this.connection.credentials.refreshToken;
    const app = oauthApp(this.env);
    if (typeof refreshToken === 'string' && refreshToken && app) {
      await revokeToken(app, refreshToken);
      return { deleted: ['the Klaviyo sign-in (its token revoked)'], notes };
    }
    return { deleted: [], notes: [...notes, 'a private API key stays valid in Klaviyo until you delete it there (Settings > API keys)'] };
  }
}
