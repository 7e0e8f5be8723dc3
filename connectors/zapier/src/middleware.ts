import type { Bundle, HttpRequestOptions, ZObject } from 'zapier-platform-core';
import { AUTH_FIELDS, engineBaseUrl, isUnder, parseBaseUrl } from './settings';

type Request = HttpRequestOptions & { url?: string; throwForThrottlingEarly?: boolean };

/**
 * Adds the credential to requests for our own services, and only to those: the engine API key in the
 * `X-API-Key` header (never in the URL), the hub's admin token as a bearer token. Both kinds of answer
 * are read by our own code (statuses included), so Zapier's early 429 handling, which knows only
 * Retry-After, is turned off for them: the delay comes from `X-RateLimit-Reset` instead.
 */
export function addCredentials(request: Request, _z: ZObject, bundle: Bundle): Request {
  const url = request.url ?? '';
  const headers = { ...(request.headers ?? {}) };
  let ours = false;
  let engine: string | undefined;
  try {
    engine = engineBaseUrl(bundle);
  } catch {
    engine = undefined; // a malformed URL field: the operation reports it by name
  }
  if (engine && isUnder(url, engine) && bundle.authData?.[AUTH_FIELDS.apiKey]) {
    headers['X-API-Key'] = bundle.authData[AUTH_FIELDS.apiKey]!;
    ours = true;
  }
  let hub: string | undefined;
  try {
    hub = parseBaseUrl(bundle.authData?.[AUTH_FIELDS.hubUrl], 'Hub Service URL');
  } catch {
    hub = undefined;
  }
  if (hub && isUnder(url, hub) && bundle.authData?.[AUTH_FIELDS.hubToken]) {
    headers.Authorization = `Bearer ${bundle.authData[AUTH_FIELDS.hubToken]}`;
    ours = true;
  }
  if (!ours) return request;
  return { ...request, headers, skipThrowForStatus: true, throwForThrottlingEarly: false };
}
