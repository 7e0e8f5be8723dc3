import type { ConnectionRecord, Connector, ConnectorDeps, ConnectorFactory, Contact, ContactResult, DisconnectReport, Page, SchemaReport, Scope, WriteOptions, WriteReport } from '@verify-hub/core';
import { ConfigError, platformLogger } from '@verify-hub/core';
import { HubSpotBounceSource } from './bounce-source';
import { buildHubSpotApis, type HubSpotApis } from './client';
import { CALLBACKS_PATH, completeActionBatched, type CallbackCompletion } from './callback-completions';
import { HubSpotAuthError, HubSpotDailyLimitError } from './errors';
import { needsRefresh, refreshHubSpotToken } from './oauth';
import { nextMidnight } from './portal-time';
import { ContactPuller, checkHubSpotScope } from './pull';
import { RequestRunner, type RunnerOptions } from './request-runner';
import { ensureHubSpotSchema } from './schema';
import { ContactWriter } from './write';
import { resolveConnection, type HubSpotCredentials, type HubSpotSettings, type ResolvedSettings } from './settings';

/** HubSpot's published uninstall API: the install of the token's app on the token's portal. */
export const UNINSTALL_PATH = '/appinstalls/v3/external-install';

export interface HubSpotConnectorOptions {
  /** The public app's credentials, for refreshing OAuth tokens (default HUBSPOT_CLIENT_ID / HUBSPOT_CLIENT_SECRET). */
  clientId?: string;
  clientSecret?: string;
  /** HUBSPOT_API_BASE, HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET (default: the module's environment the host hands the factory). */
  env?: Record<string, string | undefined>;
  /** Retry tuning (tests shorten the waits). */
  retry?: Pick<RunnerOptions, 'maxAttempts' | 'maxRateWaits' | 'backoff' | 'sleep'>;
  now?: () => number;
}

/**
 * A HubSpot portal as a verify-hub `Connector`: its own SDK client, its own token, its calls limited
 * by limiters shared by every worker (`hubspot:<portal>:10s`, `hubspot:<portal>:search`).
 */
export class HubSpotConnector implements Connector {
  readonly platform = 'hubspot';
  readonly settings: ResolvedSettings;
  private credentials: HubSpotCredentials;
  private apis: HubSpotApis;
  private readonly runner: RequestRunner;
  private readonly puller: ContactPuller;
  private readonly writer: ContactWriter;
  /** The hard bounces and sends HubSpot keeps on its contacts (bounce-source.ts). */
  readonly bounces: HubSpotBounceSource;
  private refreshing?: Promise<void>;
  private dailyRemaining?: number;
  private readonly now: () => number;
  private readonly env: NonNullable<HubSpotConnectorOptions['env']>;

  constructor(connection: ConnectionRecord, private readonly deps: ConnectorDeps, private readonly options: HubSpotConnectorOptions = {}) {
    this.env = options.env ?? (deps.environment as HubSpotConnectorOptions['env']) ?? {};
    const resolved = resolveConnection(connection, this.env, deps.settings as HubSpotSettings | undefined);
    this.settings = resolved.settings;
    this.credentials = resolved.credentials;
    this.now = options.now ?? Date.now;
    this.apis = this.buildApis();
    const portal = this.settings.portalId;
    this.runner = new RequestRunner({
      ...options.retry,
      limiter: deps.limiter({ key: `hubspot:${portal}:10s`, perInterval: { count: this.settings.requestsPerTenSeconds, intervalMs: 10_000 } }),
      searchLimiter: deps.limiter({ key: `hubspot:${portal}:search`, perInterval: { count: this.settings.searchPerSecond, intervalMs: 1_000 } }),
      beforeAttempt: () => this.beforeAttempt(),
      onUnauthorized: () => this.onUnauthorized(),
      logger: platformLogger(deps.logger, 'hubspot', connection.id),
    });
    const apis = () => this.apis;
    this.puller = new ContactPuller(this.runner, apis, this.settings);
    this.writer = new ContactWriter(this.runner, apis, this.settings);
    this.bounces = new HubSpotBounceSource(this.runner, apis, this.settings);
  }

  get portalId(): string {
    return this.settings.portalId;
  }

  /**
   * An OAuth connection (the public app installed on the portal) is uninstalled from the portal with
   * HubSpot's published uninstall API (`DELETE /appinstalls/v3/external-install`, the install's own
   * token), so HubSpot and the hub agree; an install already gone is said, not an error. A private
   * app's token has no install to remove. Webhook subscriptions are the app's, shared by every portal.
   */
  async disconnect(): Promise<DisconnectReport> {
    const notes = ["HubSpot's webhook subscriptions belong to the app, not to this connection: none deleted"];
    // A private app's token: no install to remove.
    if (this.credentials.refreshToken === undefined) return { deleted: [], notes };
    try {
      await this.runner.run('default', () => this.apis.sendJson('DELETE', UNINSTALL_PATH));
      return { deleted: [`the app's install on HubSpot portal ${this.portalId}`], notes };
    } catch (error) {
      if (!(error instanceof HubSpotAuthError)) throw error;
      return { deleted: [], notes: [...notes, `the app's install on portal ${this.portalId} was already gone (HubSpot refused its token)`] };
    }
  }

  ensureSchema(): Promise<SchemaReport> {
    return ensureHubSpotSchema(this.runner, () => this.apis, this.settings);
  }

  pull(scope: Scope, cursor?: string): Promise<Page> {
    return this.puller.pull(scope, cursor);
  }

  checkScope(scope: Scope): void {
    checkHubSpotScope(scope);
  }

  /** A run over a list is named after the list; `all` and `changed-since` read well as their scope in words. */
  async describeScope(scope: Scope): Promise<string | undefined> {
    checkHubSpotScope(scope);
    if (scope.kind !== 'list') return undefined;
    const answer = await this.runner.run('default', () => this.apis.lists.getById(scope.value!));
    return answer.list?.name || undefined;
  }

  pullByIds(ids: string[]): Promise<Contact[]> {
    return this.puller.byIds(ids);
  }

  write(results: ContactResult[], opts: WriteOptions): Promise<WriteReport> {
    return this.writer.write(results, opts);
  }

  /**
   * Completes a blocked workflow action (`outputFields` and `typedOutputs`, as HubSpot's
   * `CallbackCompletionRequest` requires), gathered with the portal's other completions due at the same
   * moment into one batch call, through the connection's limiter and retries (429 waits, 5xx backs off,
   * OAuth token refreshed).
   */
  completeAction(callbackId: string, completion: Omit<CallbackCompletion, 'callbackId'>): Promise<void> {
    return completeActionBatched(this.portalId, { callbackId, ...completion }, (batch) => this.sendCompletions(batch));
  }

  private async sendCompletions(completions: CallbackCompletion[]): Promise<void> {
    if (completions.length === 1) {
      const [{ callbackId, ...body }] = completions as [CallbackCompletion];
      await this.runner.run('default', () => this.apis.sendJson('POST', `${CALLBACKS_PATH}/${encodeURIComponent(callbackId)}/complete`, body));
    } else {
      await this.runner.run('default', () => this.apis.sendJson('POST', `${CALLBACKS_PATH}/complete`, { inputs: completions }));
    }
  }

  private buildApis(): HubSpotApis {
    return buildHubSpotApis({
      accessToken: this.credentials.accessToken,
      basePath: this.settings.apiBase,
      timeZone: this.settings.timeZone,
      onRateLimitHeaders: (h) => {
        if (h.dailyRemaining !== undefined) this.dailyRemaining = h.dailyRemaining;
      },
    });
  }

  private async beforeAttempt(): Promise<void> {
    const reserve = this.settings.dailyReserve;
    if (reserve > 0 && this.dailyRemaining !== undefined && this.dailyRemaining <= reserve) {
      throw new HubSpotDailyLimitError(`HubSpot daily API calls down to the reserve of ${reserve} kept for the portal's other apps; resumes at the portal's midnight`, {
        resetAt: nextMidnight(this.settings.timeZone, this.now()), remaining: this.dailyRemaining,
      });
    }
    if (needsRefresh(this.credentials, this.now())) await this.refresh();
  }

  private async onUnauthorized(): Promise<boolean> {
    if (this.credentials.refreshToken === undefined) return false;
    await this.refresh();
    return true;
  }

  /** One refresh at a time per connector; the new tokens are saved so every worker uses them. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const clientId = this.options.clientId ?? this.env.HUBSPOT_CLIENT_ID;
      const clientSecret = this.options.clientSecret ?? this.env.HUBSPOT_CLIENT_SECRET;
      if (!clientId || !clientSecret) throw new ConfigError(clientId ? 'HUBSPOT_CLIENT_SECRET' : 'HUBSPOT_CLIENT_ID', 'is needed to refresh the OAuth token of this HubSpot connection');
      const refreshed = await refreshHubSpotToken({ clientId, clientSecret, refreshToken: this.credentials.refreshToken!, apiBase: this.settings.apiBase, now: this.now });
      this.credentials = refreshed;
      this.apis = this.buildApis();
      await this.deps.saveCredentials({ ...refreshed });
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}

/** Builds a factory with explicit app credentials (tests, embedding); `hubspotConnectorFactory` takes them from the module's environment. */
export function createHubSpotConnectorFactory(options: HubSpotConnectorOptions = {}): ConnectorFactory {
  return Object.assign((connection: ConnectionRecord, deps: ConnectorDeps) => new HubSpotConnector(connection, deps, options), { checkScope: checkHubSpotScope });
}

export const hubspotConnectorFactory: ConnectorFactory = createHubSpotConnectorFactory();
