import type { Session } from 'klaviyo-api';
import { klaviyoSdk } from './sdk';

/** The SDK's request and answer types (axios's), as its Session interface names them. */
type AxiosRequestConfig = Parameters<Session['applyToRequest']>[0];
type AxiosResponse = Awaited<ReturnType<Session['requestWithRetry']>>;

/** One call waits this long for Klaviyo's answer; then it is a transient failure the host tries again. */
const CALL_TIMEOUT_MS = 30_000;

/**
 * The SDK's own retry loop, told to try once: retries live in the host (the pipeline's write layer and
 * its job layer), so a 429 or 5xx comes straight back to be turned into core's kinds.
 */
const tryOnce = () => new (klaviyoSdk().RetryWithExponentialBackoff)({ numRetries: 0 });

/** What an OAuth connection keeps: the access token and when it expires, the refresh token. */
export interface OAuthTokens {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * The SDK's `Session` for one connection, never its process-wide `GlobalApiKeySettings`: the SDK's own
 * sessions set the Authorization header, its user agent and the API `revision` it was generated for
 * (the pinned revision), and this adds a timeout and, for OAuth, a refresh shortly before the access
 * token expires (or once on a 401), its new tokens saved through the host.
 */
export class KlaviyoSession implements Session {
  private refreshing?: Promise<OAuthTokens>;

  private constructor(
    private readonly credentials: { apiKey: string } | { tokens: OAuthTokens; refresh: (refreshToken: string) => Promise<OAuthTokens> },
  ) {}

  static withKey(apiKey: string): KlaviyoSession {
    return new KlaviyoSession({ apiKey });
  }

  static withOAuth(tokens: OAuthTokens, refresh: (refreshToken: string) => Promise<OAuthTokens>): KlaviyoSession {
    return new KlaviyoSession({ tokens, refresh });
  }

  async applyToRequest(config: AxiosRequestConfig): Promise<void> {
    config.timeout = CALL_TIMEOUT_MS;
    if ('apiKey' in this.credentials) return new (klaviyoSdk().ApiKeySession)(this.credentials.apiKey, tryOnce()).applyToRequest(config);
    if (this.credentials.tokens.expiresAt - Date.now() < 60_000) await this.refresh();
    new (klaviyoSdk().OAuthBasicSession)(this.credentials.tokens.accessToken, tryOnce()).applyToRequest(config);
  }

  requestWithRetry(config: AxiosRequestConfig): Promise<AxiosResponse> {
    return tryOnce().requestWithRetry(config);
  }

  /** An OAuth call refused with 401 is tried once more with a refreshed token (a key has nothing to refresh). */
  async refreshAndRetry(error: unknown, retried: boolean): Promise<boolean> {
    const status = (error as { response?: { status?: number } } | undefined)?.response?.status;
    if (retried || status !== 401 || 'apiKey' in this.credentials) return false;
    await this.refresh();
    return true;
  }

  private async refresh(): Promise<OAuthTokens> {
    if ('apiKey' in this.credentials) throw new Error('a key session has nothing to refresh');
    const oauth = this.credentials;
    this.refreshing ??= oauth.refresh(oauth.tokens.refreshToken).then(
      (tokens) => {
        oauth.tokens = tokens;
        this.refreshing = undefined;
        return tokens;
      },
      (error: unknown) => {
        this.refreshing = undefined;
        throw error;
      },
    );
    return this.refreshing;
  }
}

/** The revision the SDK pins (it sends it with every request): read from the SDK itself, never restated. */
export function pinnedRevision(): string {
  const config: AxiosRequestConfig = { headers: {} };
  new (klaviyoSdk().ApiKeySession)('pk_revision_probe', tryOnce()).applyToRequest(config);
  return String((config.headers as Record<string, unknown>).revision);
}
