import { HOSTED_ENGINE_URL } from '@verify-hub/core';
import type { Bundle, HttpResponse, ZObject } from 'zapier-platform-core';
import { AUTH_FIELDS, engineBaseUrl, parseOrZapierError } from './settings';

/**
 * The connection test: the verify endpoint without an address. The engine checks the key before the
 * request (DESIGN.md §1), so a bad key answers 401 while a good one answers 400 ("email: required")
 * and no credit is spent. Any answer but 401/403, 404 and 5xx proves the key was accepted.
 */
export async function testConnection(z: ZObject, bundle: Bundle): Promise<{ engineUrl: string; keyAccepted: true }> {
  const base = parseOrZapierError(z, () => engineBaseUrl(bundle));
  let response: HttpResponse;
  try {
    response = await z.request({ url: `${base}/api/v1/verify`, method: 'GET', headers: { Accept: 'application/json' }, timeout: 15_000 });
  } catch {
    throw new z.errors.Error(`Could not reach the verify-hub engine at ${base}. Check the Engine URL, or leave it empty to use ${HOSTED_ENGINE_URL}.`, 'ENGINE_UNREACHABLE', 502);
  }
  // 401/403 is the engine's answer for a missing, invalid or revoked key (core's engineErrorFromResponse).
  if (response.status === 401 || response.status === 403) {
    throw new z.errors.Error('verify-hub rejected this API key (missing, invalid or revoked). Copy a valid key from your verify-hub dashboard, or ask your admin for one.', 'UNAUTHORIZED', 401);
  }
  if (response.status === 404) {
    throw new z.errors.Error(`No verify-hub engine answers at ${base} (404). Check the Engine URL.`, 'ENGINE_NOT_FOUND', 404);
  }
  if (response.status >= 500) {
    throw new z.errors.Error(`The verify-hub engine at ${base} had an error (${response.status}); try again in a few minutes.`, 'ENGINE_UNAVAILABLE', response.status);
  }
  return { engineUrl: base, keyAccepted: true };
}

/**
 * "api.verify-hub.com (key vh_live)": the engine's host and the key's public prefix (the part of a
 * `<prefix>_<random>` key before the underscore), never any secret part of the key.
 */
export function connectionLabel(_z: ZObject, bundle: Bundle): string {
  let host: string;
  try {
    host = new URL(engineBaseUrl(bundle)).host;
  } catch {
    host = 'verify-hub';
  }
  const key = bundle.authData?.[AUTH_FIELDS.apiKey] ?? '';
  const prefix = /^([A-Za-z0-9]{1,12})_[A-Za-z0-9_-]{16,}$/.exec(key)?.[1];
  return prefix ? `${host} (key ${prefix}_…)` : host;
}

export const authentication = {
  type: 'custom' as const,
  fields: [
    {
      key: AUTH_FIELDS.apiKey,
      label: 'API Key',
      type: 'password' as const,
      required: true,
      helpText: 'Your verify-hub API key. Create one in your verify-hub dashboard (or with `verify-hub engine keys create` on a self-hosted engine). It is sent only in the X-API-Key header.',
    },
    {
      key: AUTH_FIELDS.engineUrl,
      label: 'Engine URL',
      type: 'string' as const,
      required: false,
      helpText: `Only for a self-hosted engine, for example https://verify.example.com. Leave empty to use the hosted service (${HOSTED_ENGINE_URL}).`,
    },
    {
      key: AUTH_FIELDS.hubUrl,
      label: 'Hub Service URL',
      type: 'string' as const,
      required: false,
      helpText: 'Only for the List Cleaning Finished trigger: the address of your verify-hub service (the one that runs list cleaning), for example https://hub.example.com.',
    },
    {
      key: AUTH_FIELDS.hubToken,
      label: 'Hub Admin Token',
      type: 'password' as const,
      required: false,
      helpText: 'Only for the List Cleaning Finished trigger: the admin token of your verify-hub service (HUB_ADMIN_TOKEN).',
    },
  ],
  test: testConnection,
  connectionLabel,
};
