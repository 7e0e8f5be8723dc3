import { HOSTED_ENGINE_URL } from '@verify-hub/core';
import type { Bundle, ZObject } from 'zapier-platform-core';

/** Keys of the connection fields (bundle.authData). */
export const AUTH_FIELDS = {
  apiKey: 'apiKey',
  engineUrl: 'engineUrl',
  hubUrl: 'hubUrl',
  hubToken: 'hubToken',
} as const;

/**
 * A base URL from a connection field: http(s), no credentials, no query, trailing slashes removed.
 * Returns undefined for an empty field; throws a message naming the field for anything else.
 */
export function parseBaseUrl(value: string | undefined, field: string): string | undefined {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${field}: "${text}" is not a URL (expected for example https://engine.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${field}: must start with https:// or http://`);
  if (url.username || url.password) throw new Error(`${field}: must not contain a user name or password; the key goes in its own field`);
  if (url.search || url.hash) throw new Error(`${field}: must not contain a query (?...) or fragment (#...)`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The engine to call: the connection's base URL for a self-hosted engine, else the hosted one. */
export function engineBaseUrl(bundle: Pick<Bundle, 'authData'>): string {
  return parseBaseUrl(bundle.authData?.[AUTH_FIELDS.engineUrl], 'Engine URL') ?? HOSTED_ENGINE_URL;
}

/** The hub service (admin API) of the List Cleaning Finished trigger; a clear error when not set up. */
export function hubBaseUrl(z: ZObject, bundle: Pick<Bundle, 'authData'>): string {
  const url = parseOrZapierError(z, () => parseBaseUrl(bundle.authData?.[AUTH_FIELDS.hubUrl], 'Hub Service URL'));
  if (!url || !bundle.authData?.[AUTH_FIELDS.hubToken]) {
    throw new z.errors.Error(
      'This trigger needs the Hub Service URL and Hub Admin Token of your verify-hub service: reconnect your verify-hub account and fill in both fields.',
      'HUB_NOT_CONFIGURED',
      400,
    );
  }
  return url;
}

export function parseOrZapierError<T>(z: ZObject, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new z.errors.Error((error as Error).message, 'INVALID_CONNECTION', 400);
  }
}

/** Whether `url` is under `base` (same origin, path prefix): the only requests that get a credential. */
export function isUnder(url: string, base: string): boolean {
  try {
    const u = new URL(url);
    const b = new URL(base);
    if (u.origin !== b.origin) return false;
    const prefix = b.pathname.replace(/\/+$/, '');
    return prefix === '' || u.pathname === prefix || u.pathname.startsWith(`${prefix}/`);
  } catch {
    return false;
  }
}
