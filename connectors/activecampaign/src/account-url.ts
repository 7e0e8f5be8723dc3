import { InputError } from '@verify-hub/core';

/** An ActiveCampaign account's API URL, as Settings > Developer shows it: where its API answers and what names it. */
export interface AccountUrl {
  /** `https://<account>.api-us1.com`, no path. */
  origin: string;
  /** The account name: the first label of the host. */
  account: string;
}

/**
 * The hosts ActiveCampaign gives accounts: `<account>.api-us1.com` (the region and number vary) and the
 * older `<account>.activehosted.com`. Anything else is refused, so a mistyped URL never receives the token.
 */
const ACCOUNT_HOST = /^([a-z0-9][a-z0-9-]{0,62})\.(?:api-[a-z]{2,3}\d{1,2}\.com|activehosted\.com)$/;

/** Reads the API URL a user pasted (with or without `/api/3`, a trailing slash); throws an InputError naming `field`. */
export function parseAccountUrl(text: string, field = 'apiUrl'): AccountUrl {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InputError(field, 'must be your ActiveCampaign API URL, like https://youraccount.api-us1.com (Settings > Developer)');
  }
  if (url.protocol !== 'https:') throw new InputError(field, 'must start with https:// (ActiveCampaign answers over HTTPS only)');
  if (url.username || url.password || url.search || url.hash) throw new InputError(field, 'must be the API URL alone, with no user, query or fragment');
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '' && path !== '/api/3') throw new InputError(field, 'must be the API URL alone (https://youraccount.api-us1.com), with no other path');
  const host = ACCOUNT_HOST.exec(url.hostname.toLowerCase());
  if (!host || url.port) throw new InputError(field, 'must be an ActiveCampaign account URL: https://<account>.api-us1.com (the region may differ) or https://<account>.activehosted.com');
  return { origin: `https://${url.hostname.toLowerCase()}`, account: host[1]! };
}
