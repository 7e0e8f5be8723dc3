import { z } from 'zod';
import { InputError, type ConnectionRecord } from '@verify-hub/core';
import { MailchimpAuthError, mailchimpErrorFrom } from './errors';

/**
 * Mailchimp OAuth 2 (authorization-code flow). Access tokens do not expire and there is no refresh
 * token; the data center comes from the metadata call. `loginBase` is for tests and proxies.
 */
export const MAILCHIMP_LOGIN_BASE = 'https://login.mailchimp.com';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  loginBase?: string;
}

const base = (loginBase?: string) => (loginBase ?? MAILCHIMP_LOGIN_BASE).replace(/\/+$/, '');

/** Where to send the user to grant access; `state` comes back on the redirect (check it there). */
export function authorizeUrl(client: Pick<OAuthClient, 'clientId' | 'redirectUri' | 'loginBase'>, state: string): string {
  if (!client.clientId) throw new InputError('MAILCHIMP_CLIENT_ID', 'is required for OAuth');
  const url = new URL(`${base(client.loginBase)}/oauth2/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', client.redirectUri);
  url.searchParams.set('state', state);
  return url.toString();
}

const TokenSchema = z.looseObject({ access_token: z.string().min(1) });
const MetadataSchema = z.looseObject({
  dc: z.string().regex(/^[a-z]+[0-9]+$/),
  user_id: z.union([z.number(), z.string()]).optional(),
  accountname: z.string().optional(),
  api_endpoint: z.string().optional(),
  login: z.looseObject({ login_email: z.string().optional(), email: z.string().optional() }).optional(),
});

export interface MailchimpMetadata {
  dc: string;
  userId?: string;
  accountName?: string;
  /** For example https://us21.api.mailchimp.com */
  apiEndpoint?: string;
}

async function readJson(response: Response, operation: string): Promise<unknown> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    // The token endpoint answers {error, error_description}; neither ever holds the secret or the code.
    const b = (body ?? {}) as { error?: unknown; error_description?: unknown; detail?: unknown };
    const detail = [b.error, b.error_description ?? b.detail].filter((x) => typeof x === 'string').join(': ');
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      throw new MailchimpAuthError(`Mailchimp ${operation} refused (${response.status})${detail ? ` ${detail}` : ''}`, { status: response.status, detail });
    }
    throw mailchimpErrorFrom({ status: response.status, response: { body } }, operation);
  }
  return body;
}

/** Trades the code from the redirect for an access token. */
export async function exchangeCode(client: OAuthClient, code: string): Promise<{ accessToken: string }> {
  if (!code) throw new InputError('code', 'is missing from the OAuth redirect');
  const form = new URLSearchParams({ grant_type: 'authorization_code', client_id: client.clientId, client_secret: client.clientSecret, redirect_uri: client.redirectUri, code });
  let response: Response;
  try {
    response = await fetch(`${base(client.loginBase)}/oauth2/token`, { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' }, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw mailchimpErrorFrom(error, 'OAuth token exchange', 'MAILCHIMP_LOGIN_BASE');
  }
  const parsed = TokenSchema.safeParse(await readJson(response, 'OAuth token exchange'));
  if (!parsed.success) throw new MailchimpAuthError('Mailchimp OAuth token exchange answered without access_token');
  return { accessToken: parsed.data.access_token };
}

/** The metadata call: which data center (and account) a token belongs to. */
export async function fetchMetadata(accessToken: string, options: { loginBase?: string } = {}): Promise<MailchimpMetadata> {
  let response: Response;
  try {
    response = await fetch(`${base(options.loginBase)}/oauth2/metadata`, { headers: { authorization: `OAuth ${accessToken}`, accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw mailchimpErrorFrom(error, 'OAuth metadata', 'MAILCHIMP_LOGIN_BASE');
  }
  const parsed = MetadataSchema.safeParse(await readJson(response, 'OAuth metadata'));
  if (!parsed.success) throw new MailchimpAuthError('Mailchimp OAuth metadata answered without a data center (dc)');
  const m = parsed.data;
  return { dc: m.dc, userId: m.user_id === undefined ? undefined : String(m.user_id), accountName: m.accountname, apiEndpoint: m.api_endpoint };
}

/**
 * The whole callback step: code -> token -> metadata -> a connection record (credentials
 * `{ accessToken, dc }`). The caller stores it through a ConnectionStore, which seals the
 * credentials with SecretBox.
 */
export async function connectionFromOAuth(client: OAuthClient, code: string, extra: { listId?: string; now?: Date } = {}): Promise<ConnectionRecord> {
  const { accessToken } = await exchangeCode(client, code);
  const meta = await fetchMetadata(accessToken, { loginBase: client.loginBase });
  const settings: Record<string, unknown> = {};
  if (extra.listId) settings.listId = extra.listId;
  if (meta.apiEndpoint) settings.apiBase = `${meta.apiEndpoint.replace(/\/+$/, '')}/3.0`;
  return {
    id: `mailchimp-${meta.dc}-${meta.userId ?? 'account'}`,
    platform: 'mailchimp',
    label: meta.accountName ? `Mailchimp: ${meta.accountName}` : `Mailchimp (${meta.dc})`,
    createdAt: (extra.now ?? new Date()).toISOString(),
    credentials: { accessToken, dc: meta.dc },
    settings,
  };
}
