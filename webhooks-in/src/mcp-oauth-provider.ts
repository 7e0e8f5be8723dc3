import { createHash, randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTargetError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Logger } from '@verify-hub/core';
import { CredentialBinding } from './credential-binding';
import { assertRegistrableClient, isRegistrableClient } from './mcp-client-registration';
import { signInPage } from './mcp-sign-in-page';

/**
 * The OAuth provider behind the hub's MCP sign-in (mcp-sign-in.ts mounts the MCP SDK's handlers over it):
 * clients, pending sign-ins, codes and tokens in Redis (only SHA-256 of every secret), each code and
 * token bound to the admin credential it was issued under (credential-binding.ts), refresh tokens
 * rotated in families, and the mapping of an issued token to the engine key the hub uses, which stays
 * on the server.
 */
export interface McpSignInOptions {
  /** The engine key a signed-in assistant's verifications use (the hub's own, ENGINE_API_KEY). */
  engineKey: string;
  /** Access-token lifetime (default 1 hour); refresh tokens last `refreshTokenTtlSeconds` (30 days) and rotate. */
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
}

export const MCP_SCOPE = 'verify';
/** Every token the hub issues starts with this, so /mcp can tell it from an engine API key sent as a bearer. */
export const MCP_TOKEN_PREFIX = 'vhmcp_';
const CODE_TTL = 600;
const PENDING_TTL = 600;
const CLIENT_TTL = 180 * 86_400;

interface Pending extends Omit<AuthorizationParams, 'resource'> {
  clientId: string;
  resource?: string;
}
interface Grant {
  clientId: string;
  scopes: string[];
  resource: string;
  /** The credential binding it was issued under: honoured only while that is current. */
  binding: string;
}
interface CodeRecord extends Grant {
  codeChallenge: string;
  redirectUri: string;
}
/** Tokens of one sign-in: every refresh rotates within it, and a reused refresh token ends all of it. */
interface TokenGrant extends Grant {
  family: string;
}
interface AccessRecord extends TokenGrant {
  expiresAt: number;
}

const hash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const newSecret = (kind: string) => `${MCP_TOKEN_PREFIX}${kind}_${randomBytes(32).toString('base64url')}`;

export class HubMcpOAuthProvider implements OAuthServerProvider {
  readonly clientsStore: OAuthRegisteredClientsStore;
  private readonly accessTtl: number;
  private readonly refreshTtl: number;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly resource: URL,
    private readonly binding: CredentialBinding,
    private readonly options: McpSignInOptions,
    private readonly logger?: Logger,
  ) {
    this.accessTtl = options.accessTokenTtlSeconds ?? 3600;
    this.refreshTtl = options.refreshTokenTtlSeconds ?? 30 * 86_400;
    const clientKey = (id: string) => `${prefix}mcp:client:${id}`;
    this.clientsStore = {
      // A client stored before the redirect rules (mcp-client-registration.ts) that breaks them is unknown:
      // the SDK then answers /authorize with a 400 of its own, never a redirect to that client.
      getClient: async (clientId) => {
        const raw = await redis.get(clientKey(clientId));
        const client = raw ? (JSON.parse(raw) as OAuthClientInformationFull) : undefined;
        return client && isRegistrableClient(client) ? client : undefined;
      },
      registerClient: async (client) => {
        assertRegistrableClient(client);
        const full = { ...client, client_id: randomBytes(16).toString('base64url'), client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
        await redis.set(clientKey(full.client_id), JSON.stringify(full), 'EX', CLIENT_TTL);
        return full;
      },
    };
  }

  private key(kind: string, secret: string): string {
    return `${this.prefix}mcp:${kind}:${hash(secret)}`;
  }

  private async take<T>(kind: string, secret: string): Promise<T | undefined> {
    const raw = await this.redis.getdel(this.key(kind, secret));
    return raw ? (JSON.parse(raw) as T) : undefined;
  }

  /** The token must be for this endpoint (RFC 8707): a client that names another resource gets none. */
  private checkResource(resource: URL | string | undefined): string {
    if (resource !== undefined && String(resource).replace(/\/$/, '') !== this.resource.href.replace(/\/$/, '')) {
      throw new InvalidTargetError(`this server issues tokens only for ${this.resource.href}`);
    }
    return this.resource.href;
  }

  /** Shows the sign-in page; the page's form (POST MCP_SIGN_IN_PATH) finishes the authorization. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const resource = this.checkResource(params.resource);
    const requestId = randomBytes(24).toString('base64url');
    const pending: Pending = { ...params, resource, clientId: client.client_id };
    await this.redis.set(`${this.prefix}mcp:pending:${requestId}`, JSON.stringify(pending), 'EX', PENDING_TTL);
    signInPage(res, 200, { requestId, clientId: client.client_id, clientName: client.client_name, redirectUri: params.redirectUri });
  }

  /** Called by the sign-in form: the request, once; a wrong token leaves it in place for another try. */
  async pending(requestId: string): Promise<Pending | undefined> {
    const raw = await this.redis.get(`${this.prefix}mcp:pending:${requestId}`);
    return raw ? (JSON.parse(raw) as Pending) : undefined;
  }

  async approve(requestId: string): Promise<{ redirect: string } | undefined> {
    const [raw, binding] = await Promise.all([this.redis.getdel(`${this.prefix}mcp:pending:${requestId}`), this.binding.current()]);
    if (!raw || !binding) return undefined;
    const p = JSON.parse(raw) as Pending;
    const code = randomBytes(32).toString('base64url');
    const record: CodeRecord = { clientId: p.clientId, scopes: [MCP_SCOPE], resource: this.checkResource(p.resource), binding, codeChallenge: p.codeChallenge, redirectUri: p.redirectUri };
    await this.redis.set(this.key('code', code), JSON.stringify(record), 'EX', CODE_TTL);
    const target = new URL(p.redirectUri);
    target.searchParams.set('code', code);
    if (p.state !== undefined) target.searchParams.set('state', p.state);
    return { redirect: target.href };
  }

  async deny(requestId: string): Promise<{ redirect: string } | undefined> {
    const raw = await this.redis.getdel(`${this.prefix}mcp:pending:${requestId}`);
    if (!raw) return undefined;
    const p = JSON.parse(raw) as Pending;
    const target = new URL(p.redirectUri);
    target.searchParams.set('error', 'access_denied');
    target.searchParams.set('error_description', 'the person declined to sign in');
    if (p.state !== undefined) target.searchParams.set('state', p.state);
    return { redirect: target.href };
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<string> {
    const raw = await this.redis.get(this.key('code', code));
    const record = raw ? (JSON.parse(raw) as CodeRecord) : undefined;
    if (!record || record.clientId !== client.client_id) throw new InvalidGrantError('unknown or expired authorization code');
    return record.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    // Single use: taken out of Redis before anything else (PKCE was checked by the SDK's token handler).
    const [record, current] = await Promise.all([this.take<CodeRecord>('code', code), this.binding.current()]);
    if (!record || record.clientId !== client.client_id) throw new InvalidGrantError('unknown or expired authorization code');
    if (!CredentialBinding.holds(record.binding, current)) throw new InvalidGrantError('the sign-in was revoked: sign in again');
    if (redirectUri !== undefined && redirectUri !== record.redirectUri) throw new InvalidGrantError('redirect_uri does not match the authorization request');
    this.checkResource(resource);
    const { clientId, scopes, resource: granted, binding } = record;
    return this.issue({ clientId, scopes, resource: granted, binding, family: randomBytes(16).toString('base64url') });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    // Rotated: the old refresh token is gone once used, and remembered as used for its lifetime.
    const [record, current] = await Promise.all([this.take<TokenGrant>('refresh', refreshToken), this.binding.current()]);
    if (!record) {
      const family = await this.redis.get(this.key('refresh-used', refreshToken));
      if (family !== null) {
        // A rotated token presented again: whoever holds the family now may be a thief, so it all ends.
        await this.revokeFamily(family);
        this.logger?.warn({ clientId: client.client_id }, 'an MCP refresh token was used twice: every token of its sign-in is revoked');
      }
      throw new InvalidGrantError('unknown, used or expired refresh token: sign in again');
    }
    await this.redis.set(this.key('refresh-used', refreshToken), record.family, 'EX', this.refreshTtl);
    if (record.clientId !== client.client_id) throw new InvalidGrantError('unknown, used or expired refresh token: sign in again');
    if (!CredentialBinding.holds(record.binding, current)) throw new InvalidGrantError('the sign-in was revoked: sign in again');
    if (scopes?.some((s) => !record.scopes.includes(s))) throw new InvalidGrantError('a refresh cannot widen the scope');
    this.checkResource(resource);
    return this.issue(record);
  }

  private familyKey(family: string): string {
    return `${this.prefix}mcp:family:${family}`;
  }

  /** Deletes every live token of a sign-in (one DEL each: on a Redis Cluster they are on different slots). */
  private async revokeFamily(family: string): Promise<void> {
    const keys = await this.redis.smembers(this.familyKey(family));
    await Promise.all([...keys, this.familyKey(family)].map((key) => this.redis.del(key)));
  }

  private async issue(grant: TokenGrant): Promise<OAuthTokens> {
    const accessToken = newSecret('at');
    const refreshToken = newSecret('rt');
    const { clientId, scopes, resource, binding, family } = grant;
    const access: AccessRecord = { clientId, scopes, resource, binding, family, expiresAt: Math.floor(Date.now() / 1000) + this.accessTtl };
    const accessKey = this.key('access', accessToken);
    const refreshKey = this.key('refresh', refreshToken);
    // Separate writes, not a MULTI: on a Redis Cluster these keys are on different slots.
    await Promise.all([
      this.redis.set(accessKey, JSON.stringify(access), 'EX', this.accessTtl),
      this.redis.set(refreshKey, JSON.stringify({ clientId, scopes, resource, binding, family } satisfies TokenGrant), 'EX', this.refreshTtl),
      this.redis.sadd(this.familyKey(family), accessKey, refreshKey).then(() => this.redis.expire(this.familyKey(family), this.refreshTtl)),
    ]);
    return { access_token: accessToken, token_type: 'bearer', expires_in: this.accessTtl, refresh_token: refreshToken, scope: grant.scopes.join(' ') };
  }

  /**
   * The issued token's record, and the engine key it stands for in `extra.engineKey`: the MCP handler
   * verifies with that key. The key lives in the hub's configuration, never in Redis or a response.
   */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const [raw, current] = await Promise.all([this.redis.get(this.key('access', token)), this.binding.current()]);
    if (!raw) throw new InvalidTokenError('the access token is unknown, expired or revoked: sign in again');
    const record = JSON.parse(raw) as AccessRecord;
    if (!CredentialBinding.holds(record.binding, current)) throw new InvalidTokenError('the access token was revoked: sign in again');
    return { token, clientId: record.clientId, scopes: record.scopes, expiresAt: record.expiresAt, resource: new URL(record.resource), extra: { engineKey: this.options.engineKey } };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    for (const kind of ['access', 'refresh']) {
      const raw = await this.redis.get(this.key(kind, request.token));
      if (raw && (JSON.parse(raw) as Grant).clientId === client.client_id) await this.redis.del(this.key(kind, request.token));
    }
  }
}

