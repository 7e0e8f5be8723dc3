import type { Connection, TokenResponse } from 'jsforce';
import { ConfigError, type CallLimiter, type ConnectionRecord } from '@verify-hub/core';
import { checkUsage } from './allowance';
import type { SalesforceEnvironment } from './environment';
import { RECONNECT_WORDS, SalesforceErrors, salesforceError } from './errors';
import { jwtBearerToken, refreshAccessToken } from './oauth';
import { jsforce, noRetryTransport } from './sdk';
import type { SalesforceCredentials, SalesforceSettings } from './settings';

/** What a session needs besides the connection: the app's keys, and where refreshed tokens are saved. */
export interface SessionDeps {
  environment: SalesforceEnvironment;
  saveCredentials(credentials: ConnectionRecord['credentials']): Promise<void>;
  limiter: CallLimiter;
}

/** The org's rolling 24-hour API allocation, as the last answer's `Sforce-Limit-Info` said it. */
export interface ApiUsage {
  used: number;
  limit: number;
}

/**
 * One org's signed-in jsforce `Connection`: its instance_url, its explicit API version, and a refresh
 * that jsforce runs by itself on a 401 (`INVALID_SESSION_ID`, an expired session): the web-server
 * flow's refresh token, or a newly signed JWT assertion. The new access token is saved through the
 * host (`saveCredentials`) so every worker uses it. This is the seam other parts of the module (Change
 * Data Capture's streaming client, a background task) take their connection from.
 */
export class SalesforceSession {
  private connectionValue?: Connection;
  private credentials: SalesforceCredentials;
  /** jsforce wraps a failed refresh in a plain Error: the typed one is kept here to be thrown instead. */
  private refreshFailure?: unknown;

  constructor(
    readonly settings: SalesforceSettings,
    credentials: SalesforceCredentials,
    private readonly deps: SessionDeps,
  ) {
    this.credentials = credentials;
  }

  /** The API version every path names: `/services/data/v62.0`. */
  get dataPath(): string {
    return `/services/data/v${this.settings.apiVersion}`;
  }

  /** The jsforce connection (built once): instance_url, version and session of this org. */
  get connection(): Connection {
    this.connectionValue ??= this.build();
    return this.connectionValue;
  }

  /** The web-server flow's refresh token (none for a JWT connection). */
  get refreshToken(): string | undefined {
    return this.credentials.refreshToken;
  }

  /** Where the last `changed` run finished paging. */
  get changedWatermark(): string | undefined {
    return this.credentials.changedWatermark;
  }

  /** Saves where a `changed` run finished paging, for the next one (with the credentials, through the host). */
  async saveChangedWatermark(at: string): Promise<void> {
    this.credentials = { ...this.credentials, changedWatermark: at };
    await this.deps.saveCredentials({ ...this.credentials });
  }

  /** The org's API usage from the last answer's `Sforce-Limit-Info` header, when one has been seen. */
  get apiUsage(): ApiUsage | undefined {
    return this.connectionValue?.limitInfo?.apiUsage;
  }

  /**
   * Runs one Salesforce call through the connection's limiter, its failure as core's kind (a refused
   * refresh: an AuthError with the reconnect words). Nothing is retried here. A call is not made when
   * the last answer showed the org's allocation down to the head-room the user keeps (a QuotaError).
   */
  async call<T>(fn: (connection: Connection) => Promise<T>): Promise<T> {
    return this.deps.limiter.schedule(async () => {
      checkUsage(this.apiUsage, this.settings.apiHeadroom);
      try {
        return await fn(this.connection);
      } catch (error) {
        const failure = this.refreshFailure;
        if (failure !== undefined && error instanceof Error && /Unable to refresh session/.test(error.message)) {
          this.refreshFailure = undefined;
          throw failure;
        }
        throw salesforceError(error);
      }
    });
  }

  private build(): Connection {
    const connection = new (jsforce().Connection)({
      instanceUrl: this.settings.instanceUrl,
      version: this.settings.apiVersion,
      accessToken: this.credentials.accessToken,
      loginUrl: this.settings.loginUrl,
      refreshFn: (_connection, callback) => {
        this.renew().then(
          (answer) => callback(null, answer.access_token, answer as unknown as TokenResponse),
          (error: unknown) => {
            this.refreshFailure = salesforceError(error);
            callback(error instanceof Error ? error : new Error(String(error)));
          },
        );
      },
    });
    connection._transport = noRetryTransport();
    return connection;
  }

  /** A new access token: the refresh token (web-server flow) or a new JWT assertion; saved for every worker. */
  private async renew() {
    const env = this.deps.environment;
    const clientId = env.SALESFORCE_CLIENT_ID;
    if (!clientId) throw new ConfigError('SALESFORCE_CLIENT_ID', 'is needed to renew the session of this Salesforce connection');
    let answer;
    if (this.settings.auth === 'jwt') {
      const privateKey = env.SALESFORCE_JWT_PRIVATE_KEY;
      if (!privateKey) throw new ConfigError('SALESFORCE_JWT_PRIVATE_KEY', 'is needed to renew the session of this JWT connection');
      if (!this.settings.username) throw new SalesforceErrors.AuthError(`${RECONNECT_WORDS} (the connection names no user)`);
      answer = await jwtBearerToken({ clientId, username: this.settings.username, loginUrl: this.settings.loginUrl, privateKey });
    } else {
      if (!this.credentials.refreshToken) throw new SalesforceErrors.AuthError(`${RECONNECT_WORDS} (no refresh token)`);
      answer = await refreshAccessToken({ loginUrl: this.settings.loginUrl, clientId, clientSecret: env.SALESFORCE_CLIENT_SECRET, refreshToken: this.credentials.refreshToken });
    }
    // Salesforce keeps the refresh token unless it rotates it.
    this.credentials = { ...this.credentials, accessToken: answer.access_token, ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}) };
    await this.deps.saveCredentials({ ...this.credentials });
    return answer;
  }
}
