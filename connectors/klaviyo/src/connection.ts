import { randomBytes } from 'node:crypto';
import { AuthError, InputError, PlatformRejectedError, RateLimitError, createLocalLimiter, type CallLimiter, type ConnectionRecord, type LimiterFactory, type VerifyHubError } from '@verify-hub/core';
import { KlaviyoApi } from './api';
import type { KlaviyoEnvironment } from './environment';
import { exchangeCode, refreshTokens, type KlaviyoOAuthApp } from './oauth';
import { endpointLimiters } from './rate-limits';
import { missingScopesError, probeScopes } from './scopes';
import { KlaviyoSession, type OAuthTokens } from './session';
import { klaviyoConnectionId } from './settings';

/** The shared secret a flow webhook carries in its header: made on connect, kept sealed with the credentials. */
export const newFlowSecret = () => randomBytes(24).toString('base64url');

/** The OAuth app of this deployment, when KLAVIYO_CLIENT_ID and KLAVIYO_CLIENT_SECRET are both set. */
export function oauthApp(env: KlaviyoEnvironment): KlaviyoOAuthApp | undefined {
  if (!env.KLAVIYO_CLIENT_ID || !env.KLAVIYO_CLIENT_SECRET) return undefined;
  return { clientId: env.KLAVIYO_CLIENT_ID, clientSecret: env.KLAVIYO_CLIENT_SECRET, apiBase: env.KLAVIYO_API_BASE, authorizeUrl: env.KLAVIYO_AUTHORIZE_URL };
}

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/**
 * The SDK session of a stored connection: its private key, or its OAuth tokens (refreshed shortly
 * before they expire, the new ones saved through `save` so every worker uses them).
 */
export function sessionOf(credentials: ConnectionRecord['credentials'], env: KlaviyoEnvironment, save: (credentials: ConnectionRecord['credentials']) => Promise<void>): KlaviyoSession {
  const apiKey = text(credentials.apiKey);
  if (apiKey) return KlaviyoSession.withKey(apiKey);
  const accessToken = text(credentials.accessToken);
  const refreshToken = text(credentials.refreshToken);
  if (!accessToken || !refreshToken) throw new InputError('credentials', 'a Klaviyo connection holds a private key (apiKey) or OAuth tokens (accessToken, refreshToken)');
  const tokens: OAuthTokens = { accessToken, refreshToken, expiresAt: Number(credentials.expiresAt) || 0 };
  return KlaviyoSession.withOAuth(tokens, async (refresh) => {
    const app = oauthApp(env);
    if (!app) throw new AuthError('the Klaviyo sign-in expired and KLAVIYO_CLIENT_ID/KLAVIYO_CLIENT_SECRET are not set to renew it: sign in with Klaviyo again', 'klaviyo');
    const renewed = await refreshTokens(app, refresh);
    await save({ ...credentials, accessToken: renewed.accessToken, refreshToken: renewed.refreshToken, expiresAt: renewed.expiresAt });
    return renewed;
  });
}

/**
 * The limiters of calls outside the pipeline (connect forms, setup, the changes poller), one per key
 * for the whole process: two connect forms in a second share Klaviyo's 1-a-second accounts limit.
 */
const processLimiters = new Map<string, CallLimiter>();
export const processLimiter: LimiterFactory = (spec) => {
  let limiter = processLimiters.get(spec.key);
  if (!limiter) processLimiters.set(spec.key, (limiter = createLocalLimiter(spec)));
  return limiter;
};

/** An API for one-off calls outside the pipeline (connect, setup): the process's limiters. */
export function oneOffApi(credentials: ConnectionRecord['credentials'], env: KlaviyoEnvironment, account = 'connect'): KlaviyoApi {
  return new KlaviyoApi(sessionOf(credentials, env, async () => undefined), env.KLAVIYO_API_BASE, endpointLimiters(processLimiter, account));
}

/** The longest rate-limit wait a connect sits out rather than refusing. */
const CONNECT_WAIT_LIMIT_MS = 10_000;

/**
 * A connect met Klaviyo's limit (the accounts endpoint allows 1 call a second: another process's connect,
 * a CLI command a moment before, shares it): waits it out once when it is short, as the host does for writes.
 */
async function onceMoreAfterShortLimit<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof RateLimitError) || error.waitMs() > CONNECT_WAIT_LIMIT_MS) throw error;
    await new Promise((resolve) => setTimeout(resolve, error.waitMs() + 50));
    return call();
  }
}

/**
 * Checks credentials and builds the connection: the account they belong to (GET /api/accounts), then
 * every scope the connector needs, a missing one named with what it is for (refused, never stored).
 */
async function connectionFor(credentials: ConnectionRecord['credentials'], env: KlaviyoEnvironment, field: string, label?: string): Promise<{ record: ConnectionRecord; optionalMissing: string[] }> {
  const api = oneOffApi(credentials, env);
  let account: { id: string; name?: string };
  try {
    account = await onceMoreAfterShortLimit(() => api.account());
  } catch (error) {
    if (error instanceof AuthError && (error as VerifyHubError).status === 403) throw missingScopesError(field, ['accounts:read']);
    if (error instanceof AuthError) throw new PlatformRejectedError(field, `${field}: Klaviyo refused it (check it in Klaviyo, Settings > API keys)`);
    throw error;
  }
  const { missing, optionalMissing } = await onceMoreAfterShortLimit(() => probeScopes(api));
  if (missing.length) throw missingScopesError(field, missing);
  const record: ConnectionRecord = {
    id: klaviyoConnectionId(account.id),
    platform: 'klaviyo',
    label: label ?? `Klaviyo ${account.name ?? account.id}`,
    createdAt: new Date().toISOString(),
    credentials: { ...credentials, flowSecret: newFlowSecret() },
    settings: { account: account.id, ...(account.name ? { accountName: account.name } : {}) },
  };
  return { record, optionalMissing };
}

/** A private API key (`pk_...`) as a connection. */
export function keyConnection(env: KlaviyoEnvironment, input: { apiKey: string; label?: string }) {
  const apiKey = input.apiKey?.trim();
  if (!apiKey) throw new InputError('apiKey', 'is required: a private API key (Klaviyo: Settings > API keys)');
  if (!/^pk_[A-Za-z0-9]{10,}$/.test(apiKey)) throw new InputError('apiKey', 'must be a private API key, starting pk_ (a public site id cannot read profiles)');
  return connectionFor({ apiKey }, env, 'apiKey', input.label);
}

/** The OAuth callback: code and PKCE verifier traded for tokens, then checked like a key. */
export async function oauthConnection(app: KlaviyoOAuthApp, env: KlaviyoEnvironment, code: string, state: string, redirectUri: string) {
  const tokens = await exchangeCode(app, code, state, redirectUri);
  return connectionFor({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt }, env, 'oauth');
}
