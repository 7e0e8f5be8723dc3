import { ConfigError, type ConnectionRecord, type ConnectorDeps } from '@verify-hub/core';
import type { OAuth2Configuration, TokenResponse } from 'pipedrive/v2';
import type { PipedriveAuth } from './client';
import type { PipedriveEnvironment } from './environment';
import { pipedriveV2 } from './sdk';

/** The SDK's OAuth client for the Marketplace app, or undefined when the app is not configured. */
export function oauthClient(env: PipedriveEnvironment, redirectUri = 'https://localhost/'): OAuth2Configuration | undefined {
  if (!env.PIPEDRIVE_CLIENT_ID || !env.PIPEDRIVE_CLIENT_SECRET) return undefined;
  return new (pipedriveV2().OAuth2Configuration)({ clientId: env.PIPEDRIVE_CLIENT_ID, clientSecret: env.PIPEDRIVE_CLIENT_SECRET, redirectUri, host: env.PIPEDRIVE_OAUTH_BASE });
}

/** A token answer as the connection's credentials (sealed by the host like every credential). */
export const oauthCredentials = (token: Pick<TokenResponse, 'access_token' | 'refresh_token' | 'expires_in'>, now = Date.now()): ConnectionRecord['credentials'] => ({
  accessToken: token.access_token,
  refreshToken: token.refresh_token,
  expiresAt: now + token.expires_in * 1000,
});

/**
 * How a stored connection signs its calls: its API token, or its OAuth tokens (refreshed by the SDK when
 * expired, the new ones saved through `deps.saveCredentials` so every worker uses them).
 */
export function connectionAuth(connection: ConnectionRecord, env: PipedriveEnvironment, save: ConnectorDeps['saveCredentials']): PipedriveAuth {
  const { apiToken, accessToken, refreshToken, expiresAt } = connection.credentials;
  if (typeof apiToken === 'string' && apiToken) return { kind: 'token', apiToken };
  const oauth = oauthClient(env);
  if (!oauth) throw new ConfigError('PIPEDRIVE_CLIENT_ID', 'and PIPEDRIVE_CLIENT_SECRET are required for an OAuth connection of Pipedrive');
  oauth.updateToken({ access_token: String(accessToken ?? ''), refresh_token: String(refreshToken ?? ''), expires_in: 0, scope: '', token_type: 'bearer', api_domain: '' });
  // The SDK keeps the expiry as a time: set it from what was stored (updateToken takes seconds from now).
  (oauth as unknown as { expiresAt: number }).expiresAt = Number(expiresAt ?? 0);
  oauth.onTokenUpdate = (token) => void save({ ...connection.credentials, ...oauthCredentials(token) }).catch(() => undefined);
  return { kind: 'oauth', oauth };
}
