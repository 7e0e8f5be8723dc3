import { createHash, createHmac } from 'node:crypto';
import type { CreatedTokens, OAuthApi, RetrievedTokens, TokenStorage } from 'klaviyo-api';
import { InputError } from '@verify-hub/core';
import { KlaviyoErrors, klaviyoErrorFrom } from './errors';
import { klaviyoSdk } from './sdk';
import type { OAuthTokens } from './session';

/** The OAuth app, with where Klaviyo answers: authorize on www, token and revoke on a.klaviyo.com (www refuses those). */
export interface KlaviyoOAuthApp {
  clientId: string;
  clientSecret: string;
  apiBase: string;
  authorizeUrl: string;
}

/**
 * The PKCE code verifier of one sign-in, derived from its `state` with the app's secret: the hub keeps
 * the state (once, 10 minutes), so nothing else needs storing between the redirect and the callback,
 * and no one without the client secret can compute it from the state (which travels in URLs).
 */
export const codeVerifier = (app: Pick<KlaviyoOAuthApp, 'clientSecret'>, state: string) => createHmac('sha256', app.clientSecret).update(`klaviyo-pkce\n${state}`).digest('base64url');
const codeChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

type HubOAuthApiClass = new (app: KlaviyoOAuthApp, storage: TokenStorage) => OAuthApi;
let hubOAuthApi: HubOAuthApiClass | undefined;

/**
 * The SDK's OAuth client, pointed at this deployment's hosts (its defaults are Klaviyo's own): the class
 * is defined on the first call, as it extends the SDK's, which loads only then (see `sdk.ts`).
 */
function hubOAuthApiClass(): HubOAuthApiClass {
  hubOAuthApi ??= class HubOAuthApi extends klaviyoSdk().OAuthApi {
    constructor(app: KlaviyoOAuthApp, storage: TokenStorage) {
      super(app.clientId, app.clientSecret, storage);
      this.authorizeUrl = app.authorizeUrl;
      this.tokenUrl = `${app.apiBase.replace(/\/+$/, '')}/oauth/token`;
    }
  };
  return hubOAuthApi;
}

/** A token store that only hands the new tokens to `saved` (the connection's credentials are the store). */
const handOver = (saved: (tokens: CreatedTokens) => Promise<void> | void, current?: RetrievedTokens): TokenStorage => ({
  retrieve: () => current ?? { accessToken: '', refreshToken: '' },
  save: (_customer, tokens) => saved(tokens),
});

const asTokens = (tokens: CreatedTokens): OAuthTokens => ({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt.getTime() });

/** A token call refused (a bad code, a revoked refresh token) is refused credentials; anything else keeps its kind. */
function tokenError(error: unknown, operation: string): Error {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const status = (cause as { response?: { status?: number } }).response?.status;
  if (status === 400 || status === 401 || status === 403) return new KlaviyoErrors.AuthError(`Klaviyo refused the ${operation} (${status}): sign in with Klaviyo again`, { status });
  return klaviyoErrorFrom(cause, `OAuth ${operation}`);
}

/** Scopes the app asks for: what the connector needs, and `subscriptions:write` for the optional suppression. */
export function authorizeUrl(app: KlaviyoOAuthApp, scopes: readonly string[], state: string, redirectUri: string): string {
  return new (hubOAuthApiClass())(app, handOver(() => undefined)).generateAuthorizeUrl(state, scopes.join(' '), codeChallenge(codeVerifier(app, state)), redirectUri);
}

/** Trades the redirect's code (with the PKCE verifier of its state) for tokens. */
export async function exchangeCode(app: KlaviyoOAuthApp, code: string, state: string, redirectUri: string): Promise<OAuthTokens> {
  if (!code) throw new InputError('code', 'is missing from the OAuth redirect');
  let tokens: OAuthTokens | undefined;
  try {
    await new (hubOAuthApiClass())(app, handOver((t) => void (tokens = asTokens(t)))).createTokens('klaviyo', codeVerifier(app, state), code, redirectUri);
  } catch (error) {
    throw tokenError(error, 'sign-in');
  }
  return tokens!;
}

/** New tokens for a refresh token (the access token lives an hour). */
export async function refreshTokens(app: KlaviyoOAuthApp, refreshToken: string): Promise<OAuthTokens> {
  let tokens: OAuthTokens | undefined;
  try {
    await new (hubOAuthApiClass())(app, handOver((t) => void (tokens = asTokens(t)))).refreshTokens('klaviyo', refreshToken);
  } catch (error) {
    throw tokenError(error, 'token refresh');
  }
  return tokens!;
}

/** Revokes the refresh token (and with it the access it grants) at a.klaviyo.com; the SDK has no call for it. */
export async function revokeToken(app: KlaviyoOAuthApp, refreshToken: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${app.apiBase.replace(/\/+$/, '')}/oauth/revoke`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token' }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw klaviyoErrorFrom(error, 'OAuth revoke');
  }
  // 400 for a token already revoked or unknown: nothing left to revoke.
  if (!response.ok && response.status !== 400) throw tokenError({ response: { status: response.status } }, 'token revoke');
}
