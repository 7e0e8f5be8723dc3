import { PlatformRejectedError, AuthError, type VerifyHubError } from '@verify-hub/core';
import type { KlaviyoApi } from './api';
import { KlaviyoRequestError } from './errors';

/** What each needed scope is for (the README's permissions table says the same). */
export const REQUIRED_SCOPES = {
  'accounts:read': 'names the account a connection belongs to',
  'profiles:read': 'reads profiles, their properties and the import jobs\' errors',
  'profiles:write': 'writes the ev_* properties (profile bulk import jobs)',
  'lists:read': 'reads the members of a list, and lists to pick from',
  'lists:write': 'Klaviyo asks it of every profile bulk import job (no list is ever changed)',
  'segments:read': 'reads the members of a segment, and segments to pick from',
} as const;
/** Asked for, not required: only the suppression clean action needs it. */
export const OPTIONAL_SCOPES = { 'subscriptions:write': 'suppresses invalid addresses, only when you choose that clean action' } as const;
export const OAUTH_SCOPES = [...Object.keys(REQUIRED_SCOPES), ...Object.keys(OPTIONAL_SCOPES)];

/** 403 is Klaviyo's answer to a call whose scope the key lacks; a 401 is a key refused outright. */
const lacksScope = (error: unknown) => error instanceof AuthError && (error as VerifyHubError).status === 403;

/**
 * Which scopes the credentials hold, asked of Klaviyo itself (a private key's scopes cannot be read
 * back): one cheap read per read scope, and for each write scope a job with no profiles, which
 * changes nothing: answered as empty (400, or an empty job) when the scope is held and as forbidden
 * (403) when it is not. No profile is read in full, and nothing is written.
 */
export async function probeScopes(api: KlaviyoApi): Promise<{ missing: string[]; optionalMissing: string[] }> {
  const missing: string[] = [];
  const optionalMissing: string[] = [];
  const probe = async (scopes: string[], into: string[], call: () => Promise<unknown>) => {
    try {
      await call();
    } catch (error) {
      if (lacksScope(error)) into.push(...scopes);
      else if (!(error instanceof KlaviyoRequestError)) throw error;
    }
  };
  await probe(['profiles:read'], missing, () => api.profilePage({ size: 1 }));
  await probe(['lists:read'], missing, () => api.namedPage('list'));
  await probe(['segments:read'], missing, () => api.namedPage('segment'));
  await probe(['profiles:write', 'lists:write'], missing, () => api.createImportJob([]));
  await probe(['subscriptions:write'], optionalMissing, () => api.createSuppressJob([]));
  return { missing: [...new Set(missing)], optionalMissing };
}

/** The refusal of credentials that lack scopes, naming each and what it is for. */
export function missingScopesError(field: string, missing: string[]): PlatformRejectedError {
  const named = missing.map((scope) => `${scope} (${REQUIRED_SCOPES[scope as keyof typeof REQUIRED_SCOPES] ?? 'needed'})`).join(', ');
  return new PlatformRejectedError(field, `${field}: the key lacks ${missing.length === 1 ? 'the scope' : 'scopes'} ${named}: in Klaviyo, Settings > API keys, give the key these scopes (or create a key with them)`);
}
