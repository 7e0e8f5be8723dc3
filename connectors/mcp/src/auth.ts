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

/** The one message a caller without a key sees (HTTP 401). */
export const MISSING_KEY_MESSAGE = 'Missing API key: send it as "X-API-Key: <key>" or "Authorization: Bearer <key>".';
