import type { IncomingHttpHeaders } from 'node:http';

/**
 * The caller's API key, from `X-API-Key` or `Authorization: Bearer <key>` (assistants that only let a
 * user paste a bearer token use the latter). Returns undefined when neither carries a key.
 */
export function apiKeyFromHeaders(headers: IncomingHttpHeaders): string | undefined {
  const direct = headers['x-api-key'];
  const fromHeader = (Array.isArray(direct) ? direct[0] : direct)?.trim();
  if (fromHeader) return fromHeader;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1];
}

/**
 * The engine key of a caller its host authenticated itself (the hub's OAuth sign-in): the host's auth
 * middleware sets `req.auth` (the SDK's `AuthInfo`, which the transport also hands to the tools) with the
 * key in `extra.engineKey`. It wins over the headers, which then carry the sign-in token, not a key.
 */
export function engineKeyFromAuth(req: { auth?: { extra?: Record<string, unknown> } }): string | undefined {
  const key = req.auth?.extra?.engineKey;
  return typeof key === 'string' && key ? key : undefined;
}

/** The one message a caller without a key sees (HTTP 401): what is missing, and where a person puts it. */
export const MISSING_KEY_MESSAGE =
  'Missing API key: this MCP server verifies addresses with your verify-hub API key, and none was sent. ' +
  'In your assistant\'s settings for this server, add the header "X-API-Key: <your key>" ' +
  '(or "Authorization: Bearer <your key>" if it only takes a bearer token), then reconnect. ' +
  'Each verification uses a credit of that key.';

/**
 * The challenge of that 401. HTTP requires one, but `Bearer` would make MCP clients start an OAuth sign-in
 * this server does not offer; the `ApiKey` scheme says which header to send instead. (The hub's /mcp,
 * which does offer sign-in, answers with `Bearer resource_metadata=...` before this handler is reached.)
 */
export const MISSING_KEY_CHALLENGE = 'ApiKey realm="verify-hub", header="X-API-Key"';
