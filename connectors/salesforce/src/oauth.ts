import { createHash, createHmac, sign } from 'node:crypto';
import type { OAuth2, TokenResponse } from 'jsforce';
import { z } from 'zod';
import { ConfigError, InputError, type ConnectionRecord } from '@verify-hub/core';
import type { SalesforceEnvironment } from './environment';
import { SalesforceErrors, mapped } from './errors';
import { jsforce, noRetryTransport } from './sdk';
import { salesforceConnectionId, type SalesforceSettings } from './settings';

/** `api` reads and writes records, runs Bulk jobs and the Metadata API; `refresh_token` keeps the connection. */
export const OAUTH_SCOPES = 'api refresh_token';
export const JWT_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A JWT assertion is good for 3 minutes at most (Salesforce refuses a later `exp`). */
const ASSERTION_SECONDS = 180;

/** The login host of a connection: production, or a sandbox. */
export type LoginHost = 'production' | 'sandbox';
export const LOGIN_HOSTS: readonly LoginHost[] = ['production', 'sandbox'];

export function loginUrlOf(env: SalesforceEnvironment, host: string | undefined): string {
  if (host === undefined || host === 'production') return env.SALESFORCE_LOGIN_URL;
  if (host === 'sandbox') return env.SALESFORCE_SANDBOX_LOGIN_URL;
  throw new InputError('environment', 'must be production or sandbox');
}

/**
 * The PKCE verifier of one sign-in, derived from its one-time state with the hub's secret key, so
 * nothing is kept between the redirect and the callback (jsforce keeps it in memory only, and the
 * callback may reach another process). Unguessable without HUB_SECRET_KEY; the URL carries only its hash.
 */
export function pkceVerifier(secretKey: string | undefined, state: string): string {
  if (!secretKey) throw new ConfigError('HUB_SECRET_KEY', 'is needed for the Salesforce sign-in (PKCE)');
  return createHmac('sha256', secretKey).update(`salesforce-pkce:${state}`).digest('base64url');
}
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** jsforce's OAuth2 client, without jsforce's own retries. */
export function oauth2(options: { loginUrl: string; clientId?: string; clientSecret?: string; redirectUri?: string }): OAuth2 {
  const client = new (jsforce().OAuth2)(options);
  client._transport = noRetryTransport();
  return client;
}

/** Where an admin signs in: the External Client App's consent page on the chosen login host, with the PKCE challenge. */
export function authorizeUrl(options: { loginUrl: string; clientId: string; redirectUri: string; state: string; verifier: string }): string {
  return oauth2(options).getAuthorizationUrl({ scope: OAUTH_SCOPES, state: options.state, code_challenge: pkceChallenge(options.verifier) });
}

const TokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  instance_url: z.url(),
  /** The identity URL: `<login host>/id/<orgId>/<userId>`. */
  id: z.url(),
});
type TokenAnswer = z.infer<typeof TokenAnswer>;

/** Validates a token answer: the org and user come from its identity URL, the org's API host from `instance_url`. */
export function readTokenAnswer(raw: TokenResponse | unknown, loginUrl: string): TokenAnswer & { orgId: string; userId: string } {
  const parsed = TokenAnswer.safeParse(raw);
  if (!parsed.success) throw new SalesforceErrors.TransientError('Salesforce answered the token request without an access token, instance_url or identity URL');
  const ids = /\/id\/(00D[A-Za-z0-9]{12,15})\/(005[A-Za-z0-9]{12,15})\/?$/.exec(new URL(parsed.data.id).pathname);
  if (!ids) throw new SalesforceErrors.TransientError('Salesforce answered the token request with an identity URL that names no org and user');
  // A token answer naming a plain-http API host is only taken from a plain-http login host (a fake in tests).
  if (new URL(parsed.data.instance_url).protocol !== 'https:' && new URL(loginUrl).protocol === 'https:') {
    throw new SalesforceErrors.AuthError('Salesforce answered with an instance_url that is not https: refused');
  }
  return { ...parsed.data, orgId: ids[1]!, userId: ids[2]! };
}

/** The connection record of a token answer: `salesforce-<orgId>`, its instance_url, login host and API version kept with it. */
export function connectionRecord(answer: ReturnType<typeof readTokenAnswer>, settings: Pick<SalesforceSettings, 'loginUrl' | 'apiVersion' | 'auth'> & { username?: string }, label?: string): ConnectionRecord {
  const sandbox = settings.loginUrl !== undefined && /test\.salesforce\.com|sandbox/i.test(settings.loginUrl);
  return {
    id: salesforceConnectionId(answer.orgId),
    platform: 'salesforce',
    label: label ?? `Salesforce org ${answer.orgId}${sandbox ? ' (sandbox)' : ''}`,
    createdAt: new Date().toISOString(),
    credentials: { accessToken: answer.access_token, ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}) },
    settings: {
      orgId: answer.orgId,
      userId: answer.userId,
      instanceUrl: answer.instance_url.replace(/\/+$/, ''),
      loginUrl: settings.loginUrl,
      apiVersion: settings.apiVersion,
      auth: settings.auth,
      ...(settings.username ? { username: settings.username } : {}),
    },
  };
}

/** The web-server flow's second leg: the code and the PKCE verifier for tokens. */
export async function exchangeCode(options: { loginUrl: string; clientId: string; clientSecret: string; redirectUri: string; code: string; verifier: string }) {
  if (!options.code) throw new InputError('code', 'is required');
  const client = oauth2(options);
  client.codeVerifier = options.verifier;
  return readTokenAnswer(await mapped(() => client.requestToken(options.code)), options.loginUrl);
}

/** A new access token for a refresh token; an `invalid_grant` (revoked, expired) becomes an AuthError. */
export async function refreshAccessToken(options: { loginUrl: string; clientId: string; clientSecret?: string; refreshToken: string }) {
  return readTokenAnswer(await mapped(() => oauth2(options).refreshToken(options.refreshToken)), options.loginUrl);
}

/** A signed JWT bearer assertion (RS256): the app's consumer key as issuer, the user as subject, the login host as audience. */
export function jwtAssertion(options: { clientId: string; username: string; loginUrl: string; privateKey: string; now?: number }): string {
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256' })}.${part({ iss: options.clientId, sub: options.username, aud: options.loginUrl.replace(/\/+$/, ''), exp: now + ASSERTION_SECONDS })}`;
  // An environment variable often carries the PEM's line breaks as `\n`.
  const key = options.privateKey.includes('\\n') ? options.privateKey.replace(/\\n/g, '\n') : options.privateKey;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), key).toString('base64url')}`;
}

/** The JWT bearer flow: an access token for the user, no refresh token (a new assertion is signed when it expires). */
export async function jwtBearerToken(options: { clientId: string; username: string; loginUrl: string; privateKey: string }) {
  const assertion = jwtAssertion(options);
  return readTokenAnswer(await mapped(() => oauth2({ loginUrl: options.loginUrl }).requestToken({ grant_type: JWT_GRANT, assertion })), options.loginUrl);
}
