import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Redis } from 'ioredis';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { TemporarilyUnavailableError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { throttleRefusalMessage, type CredentialAttempt, type CredentialThrottle, type Logger, type ThrottleRefusal } from '@verify-hub/core';
import { checkAdminToken } from './auth';
import type { CredentialBinding } from './credential-binding';
import { registrationLimit } from './mcp-client-registration';
import { HubMcpOAuthProvider, MCP_SCOPE, MCP_TOKEN_PREFIX, type McpSignInOptions } from './mcp-oauth-provider';
import { MCP_SIGN_IN_PATH, signInPage } from './mcp-sign-in-page';

/**
 * Sign-in for the hub's MCP endpoint (the MCP authorization spec, OAuth 2.1): /mcp is a protected resource
 * and the hub is its authorization server. Built on the MCP SDK's own handlers (metadata, dynamic client
 * registration, authorization code with PKCE S256, token, revocation, bearer check) over the provider in
 * mcp-oauth-provider.ts. Every secret presented here (the admin token on the sign-in page, codes, refresh
 * and access tokens) is checked under the hub's credential throttle.
 */
export { HubMcpOAuthProvider, MCP_SCOPE, MCP_SIGN_IN_PATH, MCP_TOKEN_PREFIX, type McpSignInOptions };

export interface McpSignIn {
  /** The SDK's authorization-server routes, the metadata and the sign-in form: mount at the app root. */
  routes: Router;
  /** In front of the MCP handler: checks an issued token, or lets an API key through, or asks to sign in. */
  gate: RequestHandler;
  provider: HubMcpOAuthProvider;
  resourceMetadataUrl: string;
}

export interface McpSignInDeps {
  redis: Redis;
  prefix: string;
  adminToken: string;
  publicUrl: string;
  mcpPath: string;
  throttle: CredentialThrottle;
  binding: CredentialBinding;
  logger: Logger;
}

const EXPIRED_REQUEST = 'This sign-in request expired or was already used. Start the sign-in again from your assistant.';

/** The token endpoint's grants, by the credential name the throttle counts their failures under. */
const GRANT_CREDENTIALS: Record<string, string> = { refresh_token: 'mcp-refresh-token', authorization_code: 'mcp-authorization-code' };

/**
 * Settles a throttle attempt by how the request ended: `passed()` (the check let it through) counts it
 * as right; an answer without it is right unless it is one of `failures` (the credential was wrong).
 */
function settleOnFinish(res: Response, attempt: CredentialAttempt, failures: number[], logger: Logger): { passed(): void } {
  let settled = false;
  const settle = (ok: boolean) => {
    if (settled) return;
    settled = true;
    (ok ? attempt.succeeded() : attempt.failed()).catch((error: unknown) => logger.error({ err: error }, 'the credential throttle could not record an attempt'));
  };
  res.on('finish', () => settle(!failures.includes(res.statusCode)));
  res.on('close', () => settle(true));
  return { passed: () => settle(true) };
}

/**
 * Everything sign-in needs, for the MCP endpoint at `mcpPath` of the hub at `publicUrl` (the issuer and
 * the resource must be stable URLs, so sign-in needs HUB_PUBLIC_URL; http only for localhost).
 */
export function mcpSignIn(deps: McpSignInDeps, options: McpSignInOptions): McpSignIn {
  const { throttle, logger } = deps;
  const issuer = new URL(deps.publicUrl);
  const resource = new URL(deps.mcpPath.replace(/^\//, ''), issuer.href.endsWith('/') ? issuer : new URL(`${issuer.href}/`));
  const provider = new HubMcpOAuthProvider(deps.redis, deps.prefix, resource, deps.binding, options, logger);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resource);

  const routes = Router();
  // Registration is counted in Redis (every hub process together), so the SDK's per-process limiter is off.
  routes.use('/register', registrationLimit(deps.redis, deps.prefix, logger));
  routes.post('/token', express.urlencoded({ extended: false, limit: '8kb' }), async (req, res, next) => {
    const grant = (req.body as Record<string, unknown> | undefined)?.grant_type;
    const credential = typeof grant === 'string' ? GRANT_CREDENTIALS[grant] : undefined;
    if (!credential) return next();
    try {
      const attempt = await throttle.attempt(req.ip, credential, 'MCP token endpoint');
      if (!attempt.allowed) return throttleRefused(res, attempt);
      settleOnFinish(res, attempt, [400, 401], logger);
      next();
    } catch (error) {
      next(error);
    }
  });
  routes.use(
    mcpAuthRouter({
      provider,
      issuerUrl: issuer,
      resourceServerUrl: resource,
      scopesSupported: [MCP_SCOPE],
      resourceName: 'verify-hub email verification',
      clientRegistrationOptions: { rateLimit: false },
    }),
  );
  // Clients that look for the metadata at the root (the spec's fallback) find the same document.
  routes.get('/.well-known/oauth-protected-resource', (_req, res) => {
    res.json({ resource: resource.href, authorization_servers: [issuer.href], scopes_supported: [MCP_SCOPE], resource_name: 'verify-hub email verification' });
  });

  routes.post(MCP_SIGN_IN_PATH, express.urlencoded({ extended: false, limit: '8kb' }), async (req, res, next) => {
    try {
      await signInForm(req, res);
    } catch (error) {
      next(error);
    }
  });

  async function signInForm(req: Request, res: Response): Promise<void> {
    const body = (req.body ?? {}) as { request?: unknown; token?: unknown; action?: unknown };
    const requestId = typeof body.request === 'string' ? body.request : '';
    const pending = requestId ? await provider.pending(requestId) : undefined;
    if (!pending) return void res.status(400).set('Cache-Control', 'no-store').type('text').send(EXPIRED_REQUEST);
    if (body.action === 'deny') return void res.redirect(302, (await provider.deny(requestId))!.redirect);
    const client = await provider.clientsStore.getClient(pending.clientId);
    const again = (status: number, error: string) => signInPage(res, status, { requestId, clientId: pending.clientId, clientName: client?.client_name, redirectUri: pending.redirectUri, error });
    const token = typeof body.token === 'string' ? body.token : '';
    if (!token) return again(400, 'Enter the admin token (HUB_ADMIN_TOKEN of this hub).');
    const check = await checkAdminToken(throttle, req, token, deps.adminToken, 'MCP sign-in');
    if (check.outcome === 'refused') {
      const { refusal } = check;
      res.set('Retry-After', String(refusal.retryAfterSeconds));
      if (refusal.refused === 'busy') return again(503, `Busy: too many sign-ins from this address under way at once. Try again in ${refusal.retryAfterSeconds} s.`);
      return again(429, `Too many failed sign-ins from this address: try again in ${refusal.retryAfterSeconds} s.`);
    }
    if (check.outcome === 'wrong') return again(401, 'Wrong admin token. Use the value of HUB_ADMIN_TOKEN of this hub.');
    const approved = await provider.approve(requestId);
    if (!approved) return void res.status(400).type('text').send(EXPIRED_REQUEST);
    logger.info({ clientId: pending.clientId, client: client?.client_name }, 'MCP sign-in approved');
    res.redirect(302, approved.redirect);
  }

  const bearer = requireBearerAuth({ verifier: provider, requiredScopes: [MCP_SCOPE], resourceMetadataUrl, expectedResource: resource });
  const gate: RequestHandler = async (req, res, next) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
    if (token?.startsWith(MCP_TOKEN_PREFIX)) {
      try {
        const attempt = await throttle.attempt(req.ip, 'mcp-access-token', 'MCP endpoint');
        if (!attempt.allowed) return throttleRefused(res, attempt);
        // Settled when the bearer check lets the call through, not when a long tool call ends.
        const settle = settleOnFinish(res, attempt, [401], logger);
        return void bearer(req, res, (error?: unknown) => {
          settle.passed();
          next(error);
        });
      } catch (error) {
        return next(error);
      }
    }
    // The API-key path stays: X-API-Key, or an engine key sent as a bearer token (the engine checks those).
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

function throttleRefused(res: Response, refusal: ThrottleRefusal): void {
  res.set({ 'Retry-After': String(refusal.retryAfterSeconds), 'Cache-Control': 'no-store' });
  // Busy is OAuth's temporarily_unavailable (try again), not a lock-out.
  if (refusal.refused === 'busy') return void res.status(503).json(new TemporarilyUnavailableError(throttleRefusalMessage(refusal)).toResponseObject());
  res.status(429).json(new TooManyRequestsError(throttleRefusalMessage(refusal)).toResponseObject());
}
