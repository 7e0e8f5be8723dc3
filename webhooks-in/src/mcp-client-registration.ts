import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { CustomOAuthError, InvalidClientMetadataError, TooManyRequestsError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { clientAddressKey, type Logger } from '@verify-hub/core';

/**
 * Dynamic client registration (RFC 7591) as OAuth 2.1 and the MCP authorization spec want it: anyone may
 * register (assistants do so unattended), so what a client may register is narrow. A redirect URI is
 * https, or http on a loopback address (a desktop assistant's local listener); no fragment, no user
 * info. /authorize then compares the requested URI exactly (the MCP SDK's handler; the port of a loopback
 * URI may differ, as RFC 8252 §7.3 requires of native apps) and answers an unknown client or URI itself,
 * never by redirect. Private-use schemes (`cursor://...`) are refused: the MCP spec allows https and
 * localhost only.
 */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 200;

/** Why `uri` cannot be a redirect URI, or null. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `longer than ${MAX_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash || uri.includes('#')) return 'must not have a fragment (#...)';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return 'must be https, or http on a loopback address (localhost, 127.0.0.1 or [::1])';
}

function registrationProblem(client: Pick<OAuthClientMetadata, 'redirect_uris' | 'client_name'>): { error: 'uri' | 'metadata'; message: string } | null {
  const uris = client.redirect_uris ?? [];
  if (uris.length === 0) return { error: 'uri', message: 'redirect_uris: at least one is required' };
  if (uris.length > MAX_REDIRECT_URIS) return { error: 'uri', message: `redirect_uris: at most ${MAX_REDIRECT_URIS}` };
  for (const [i, uri] of uris.entries()) {
    const problem = redirectUriProblem(String(uri));
    if (problem) return { error: 'uri', message: `redirect_uris[${i}]: ${problem}` };
  }
  if (client.client_name !== undefined && client.client_name.length > MAX_NAME_LENGTH) return { error: 'metadata', message: `client_name: longer than ${MAX_NAME_LENGTH} characters` };
  return null;
}

/** Throws the RFC 7591 error (`invalid_redirect_uri` or `invalid_client_metadata`, a 400) for a client that may not register. */
export function assertRegistrableClient(client: Pick<OAuthClientMetadata, 'redirect_uris' | 'client_name'>): void {
  const problem = registrationProblem(client);
  if (problem?.error === 'uri') throw new CustomOAuthError('invalid_redirect_uri', problem.message);
  if (problem) throw new InvalidClientMetadataError(problem.message);
}

export function isRegistrableClient(client: Pick<OAuthClientMetadata, 'redirect_uris' | 'client_name'>): boolean {
  return registrationProblem(client) === null;
}

/** Registrations allowed per client address (an IPv6 /64 counts as one) and hour, on every hub process together. */
export const REGISTRATIONS_PER_HOUR = 20;

/** In front of POST /register: the SDK's own limiter counts per process, this one in Redis. */
export function registrationLimit(redis: Redis, prefix: string, logger: Logger, perHour = REGISTRATIONS_PER_HOUR): RequestHandler {
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}mcp-registrations`, points: perHour, duration: 3600 });
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    try {
      await limiter.consume(clientAddressKey(req.ip));
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      logger.warn({ address: clientAddressKey(req.ip), perHour }, 'MCP client registrations refused: too many from this address');
      res.set({ 'Retry-After': String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))), 'Cache-Control': 'no-store' });
      res.status(429).json(new TooManyRequestsError(`at most ${perHour} client registrations an hour from one address`).toResponseObject());
    }
  };
}
