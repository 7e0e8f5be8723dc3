import { InputError, PlatformRejectedError, credentialsRefused, type ConnectionRecord } from '@verify-hub/core';
import type { TokenResponse } from 'pipedrive/v2';
import { PipedriveApi, type Me } from './api';
import { oauthClient, oauthCredentials } from './auth';
import type { PipedriveAuth } from './client';
import type { PipedriveEnvironment } from './environment';
import { pipedriveConnectionId, type PipedriveSettings } from './settings';

/** Where /users/me answers for any company's token, before its own domain is known. */
export const DEFAULT_API_DOMAIN = 'https://api.pipedrive.com';

/** The company's own API address: `https://acme.pipedrive.com`. */
export const companyApiDomain = (companyDomain: string) => `https://${companyDomain}.pipedrive.com`;

function record(me: Me, apiDomain: string, credentials: ConnectionRecord['credentials'], options: { label?: string; filterId?: number }): ConnectionRecord {
  const settings: PipedriveSettings = {
    companyId: me.companyId,
    companyDomain: me.companyDomain,
    apiDomain,
    userId: me.userId,
    burstLimit: me.burstLimit ?? 20,
    ...(options.filterId ? { filterId: options.filterId } : {}),
  };
  return {
    id: pipedriveConnectionId(me.companyId),
    platform: 'pipedrive',
    label: options.label ?? `Pipedrive ${me.companyName ?? me.companyDomain}`,
    createdAt: new Date().toISOString(),
    credentials,
    settings,
  };
}

async function whoAmI(env: PipedriveEnvironment, apiDomain: string, auth: PipedriveAuth, field: string, refusal: string): Promise<Me> {
  try {
    return await new PipedriveApi(env.PIPEDRIVE_API_BASE ?? apiDomain, auth).me();
  } catch (error) {
    if (credentialsRefused(error)) throw new PlatformRejectedError(field, `${field}: ${refusal}`);
    throw error;
  }
}

/** An API token checked with `GET /v1/users/me` (which names the company), as a connection record. */
export async function tokenConnection(env: PipedriveEnvironment, input: { apiToken: string; label?: string; filterId?: number }): Promise<ConnectionRecord> {
  const apiToken = input.apiToken?.trim();
  if (!apiToken) throw new InputError('apiToken', 'is required (Pipedrive: Personal preferences > API)');
  const me = await whoAmI(env, DEFAULT_API_DOMAIN, { kind: 'token', apiToken }, 'apiToken', 'Pipedrive refused this API token');
  return record(me, companyApiDomain(me.companyDomain), { apiToken }, input);
}

/** The Marketplace app's consent page, with the hub's state (the SDK's URL has no state of its own). */
export function authorizeUrl(env: PipedriveEnvironment, state: string, redirectUri: string): string | undefined {
  const oauth = oauthClient(env, redirectUri);
  return oauth && `${oauth.authorizationUrl}&state=${encodeURIComponent(state)}`;
}

/** The code Pipedrive sent back, exchanged for tokens (the SDK's `authorize`), as a connection record. */
export async function oauthConnection(env: PipedriveEnvironment, code: string, redirectUri: string): Promise<ConnectionRecord> {
  const oauth = oauthClient(env, redirectUri);
  if (!oauth) throw new InputError('PIPEDRIVE_CLIENT_ID', 'the Pipedrive app is not configured');
  let token: TokenResponse;
  try {
    token = await oauth.authorize(code);
  } catch (error) {
    if ((error as { isAxiosError?: boolean }).isAxiosError) throw error;
    throw new PlatformRejectedError('code', 'code: Pipedrive refused the sign-in (expired or already used): sign in again');
  }
  const apiDomain = token.api_domain || DEFAULT_API_DOMAIN;
  const me = await whoAmI(env, apiDomain, { kind: 'oauth', oauth }, 'code', 'Pipedrive refused the token it just issued: sign in again');
  return record(me, apiDomain, oauthCredentials(token), {});
}
