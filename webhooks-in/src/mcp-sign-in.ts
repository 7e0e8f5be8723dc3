import { createHash, randomBytes } from 'node:crypto';
import express, { Router, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTargetError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Logger } from '@verify-hub/core';
import { safeEqual } from './auth';
import type { SignInLimiter } from './session';
import { MCP_SIGN_IN_PATH, signInPage } from './mcp-sign-in-page';

/**
 * Sign-in for the hub's MCP endpoint (the MCP authorization spec, OAuth 2.1): /mcp is a protected resource
 * and the hub is its authorization server. Built on the MCP SDK's own handlers (metadata, dynamic client
 * registration, authorization code with PKCE S256, token, revocation, bearer check); this module is the
 * provider behind them: Redis storage, the sign-in page (the admin token), and the mapping of an issued
 * token to the engine key the hub uses, which stays on the server.
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
export { MCP_SIGN_IN_PATH };

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
}
interface CodeRecord extends Grant {
  codeChallenge: string;
  redirectUri: string;
}
interface AccessRecord extends Grant {
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
    private readonly options: McpSignInOptions,
  ) {
    this.accessTtl = options.accessTokenTtlSeconds ?? 3600;
    this.refreshTtl = options.refreshTokenTtlSeconds ?? 30 * 86_400;
    const clientKey = (id: string) => `${prefix}mcp:client:${id}`;
    this.clientsStore = {
      getClient: async (clientId) => {
        const raw = await redis.get(clientKey(clientId));
        return raw ? (JSON.parse(raw) as OAuthClientInformationFull) : undefined;
      },
      registerClient: async (client) => {
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
    signInPage(res, 200, { requestId, clientName: client.client_name, redirectUri: params.redirectUri });
  }

  /** Called by the sign-in form: the request, once; a wrong token leaves it in place for another try. */
  async pending(requestId: string): Promise<Pending | undefined> {
    const raw = await this.redis.get(`${this.prefix}mcp:pending:${requestId}`);
    return raw ? (JSON.parse(raw) as Pending) : undefined;
  }

  async approve(requestId: string): Promise<{ redirect: string } | undefined> {
    const raw = await this.redis.getdel(`${this.prefix}mcp:pending:${requestId}`);
    if (!raw) return undefined;
    const p = JSON.parse(raw) as Pending;
    const code = randomBytes(32).toString('base64url');
    const record: CodeRecord = { clientId: p.clientId, scopes: [MCP_SCOPE], resource: this.checkResource(p.resource), codeChallenge: p.codeChallenge, redirectUri: p.redirectUri };
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
    const record = await this.take<CodeRecord>('code', code);
    if (!record || record.clientId !== client.client_id) throw new InvalidGrantError('unknown or expired authorization code');
    if (redirectUri !== undefined && redirectUri !== record.redirectUri) throw new InvalidGrantError('redirect_uri does not match the authorization request');
    this.checkResource(resource);
    return this.issue(record);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    // Rotated: the old refresh token is gone once used.
    const record = await this.take<Grant>('refresh', refreshToken);
    if (!record || record.clientId !== client.client_id) throw new InvalidGrantError('unknown, used or expired refresh token: sign in again');
    if (scopes?.some((s) => !record.scopes.includes(s))) throw new InvalidGrantError('a refresh cannot widen the scope');
    this.checkResource(resource);
    return this.issue(record);
  }

  private async issue(grant: Grant): Promise<OAuthTokens> {
    const accessToken = newSecret('at');
    const refreshToken = newSecret('rt');
    const access: AccessRecord = { clientId: grant.clientId, scopes: grant.scopes, resource: grant.resource, expiresAt: Math.floor(Date.now() / 1000) + this.accessTtl };
    // Two writes, not a MULTI: on a Redis Cluster the two tokens' keys are on different slots.
    await Promise.all([
      this.redis.set(this.key('access', accessToken), JSON.stringify(access), 'EX', this.accessTtl),
      this.redis.set(this.key('refresh', refreshToken), JSON.stringify({ clientId: grant.clientId, scopes: grant.scopes, resource: grant.resource } satisfies Grant), 'EX', this.refreshTtl),
    ]);
    return { access_token: accessToken, token_type: 'bearer', expires_in: this.accessTtl, refresh_token: refreshToken, scope: grant.scopes.join(' ') };
  }

  /**
   * The issued token's record, and the engine key it stands for in `extra.engineKey`: the MCP handler
   * verifies with that key. The key lives in the hub's configuration, never in Redis or a response.
   */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const raw = await this.redis.get(this.key('access', token));
    if (!raw) throw new InvalidTokenError('the access token is unknown, expired or revoked: sign in again');
    const record = JSON.parse(raw) as AccessRecord;
    return { token, clientId: record.clientId, scopes: record.scopes, expiresAt: record.expiresAt, resource: new URL(record.resource), extra: { engineKey: this.options.engineKey } };
  }

  async revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    for (const kind of ['access', 'refresh']) {
      const raw = await this.redis.get(this.key(kind, request.token));
      if (raw && (JSON.parse(raw) as Grant).clientId === client.client_id) await this.redis.del(this.key(kind, request.token));
    }
  }
}

export interface McpSignIn {
  /** The SDK's authorization-server routes, the metadata and the sign-in form: mount at the app root. */
  routes: Router;
  /** In front of the MCP handler: checks an issued token, or lets an API key through, or asks to sign in. */
  gate: RequestHandler;
  provider: HubMcpOAuthProvider;
  resourceMetadataUrl: string;
}

/**
 * Everything sign-in needs, for the MCP endpoint at `mcpPath` of the hub at `publicUrl` (the issuer and
 * the resource must be stable URLs, so sign-in needs HUB_PUBLIC_URL; http only for localhost).
 */
export function mcpSignIn(deps: { redis: Redis; prefix: string; adminToken: string; publicUrl: string; mcpPath: string; limiter: SignInLimiter; logger: Logger }, options: McpSignInOptions): McpSignIn {
  const issuer = new URL(deps.publicUrl);
  const resource = new URL(deps.mcpPath.replace(/^\//, ''), issuer.href.endsWith('/') ? issuer : new URL(`${issuer.href}/`));
  const provider = new HubMcpOAuthProvider(deps.redis, deps.prefix, resource, options);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);

  const routes = Router();
  routes.use(mcpAuthRouter({ provider, issuerUrl: issuer, resourceServerUrl: resource, scopesSupported: [MCP_SCOPE], resourceName: 'verify-hub email verification' }));
  // Clients that look for the metadata at the root (the spec's fallback) find the same document.
  routes.get('/.well-known/oauth-protected-resource', (_req, res) => {
    res.json({ resource: resource.href, authorization_servers: [issuer.href], scopes_supported: [MCP_SCOPE], resource_name: 'verify-hub email verification' });
  });

  routes.post(MCP_SIGN_IN_PATH, express.urlencoded({ extended: false, limit: '8kb' }), async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as { request?: unknown; token?: unknown; action?: unknown };
      const requestId = typeof body.request === 'string' ? body.request : '';
      const pending = requestId ? await provider.pending(requestId) : undefined;
      if (!pending) {
        res.status(400).set('Cache-Control', 'no-store').type('text').send('This sign-in request expired or was already used. Start the sign-in again from your assistant.');
        return;
      }
      if (body.action === 'deny') return void res.redirect(302, (await provider.deny(requestId))!.redirect);
      const client = await provider.clientsStore.getClient(pending.clientId);
      const again = (status: number, error: string) => signInPage(res, status, { requestId, clientName: client?.client_name, redirectUri: pending.redirectUri, error });
      const address = req.ip ?? 'unknown';
      const wait = await deps.limiter.retryAfter(address);
      if (wait > 0) {
        res.set('Retry-After', String(wait));
        return again(429, `Too many failed sign-ins: try again in ${wait} s.`);
      }
      const token = typeof body.token === 'string' ? body.token : '';
      if (!token || !safeEqual(token, deps.adminToken)) {
        await deps.limiter.recordFailure(address);
        return again(401, 'Wrong admin token. Use the value of HUB_ADMIN_TOKEN of this hub.');
      }
      await deps.limiter.reset(address);
      const approved = await provider.approve(requestId);
      if (!approved) return void res.status(400).type('text').send('This sign-in request expired or was already used. Start the sign-in again from your assistant.');
      deps.logger.info({ clientId: pending.clientId, client: client?.client_name }, 'MCP sign-in approved');
      res.redirect(302, approved.redirect);
    } catch (error) {
      next(error);
    }
  });

  const bearer = requireBearerAuth({ verifier: provider, requiredScopes: [MCP_SCOPE], resourceMetadataUrl, expectedResource: resource });
  const gate: RequestHandler = (req, res, next) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (token?.startsWith(MCP_TOKEN_PREFIX)) return void bearer(req, res, next);
    // The API-key path stays: X-API-Key, or an engine key sent as a bearer token.
    if (token || req.get('x-api-key')?.trim()) return next();
    res.set('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadataUrl}", scope="${MCP_SCOPE}"`);
    res.status(401).json({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32001,
        message:
          'Not signed in: connect this assistant to verify-hub by signing in (your assistant opens the hub\'s sign-in page; ' +
          'sign in there with the hub\'s admin token), or add your verify-hub API key in the assistant\'s settings for this server ' +
          'as the header "X-API-Key: <your key>" (or "Authorization: Bearer <your key>"), then reconnect.',
      },
    });
  };

  return { routes, gate, provider, resourceMetadataUrl };
}
