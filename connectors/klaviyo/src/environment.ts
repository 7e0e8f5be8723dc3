import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';

/** Klaviyo's API host: every API call, and the OAuth token and revoke calls (www is blocked for those). */
export const DEFAULT_API_BASE = 'https://a.klaviyo.com';
/** Where a user is sent to grant the app access. */
export const DEFAULT_AUTHORIZE_URL = 'https://www.klaviyo.com/oauth/authorize';

/**
 * Klaviyo's environment variables, all named `KLAVIYO_...`: validated with core's at start once the
 * platform is installed (a typo under the prefix stops the process), secrets never echoed. The host
 * reads them and hands them to the connector factory; nothing here reads `process.env`.
 */
export const klaviyoEnvironment = platformEnvironment(
  {
    /** A private API key (`pk_...`): `verify-hub klaviyo connect` stores it as a connection. */
    KLAVIYO_PRIVATE_KEY: configSecret.optional(),
    /** The OAuth app (PKCE): both set, the dashboard offers "Sign in with Klaviyo". */
    KLAVIYO_CLIENT_ID: z.string().min(1).optional(),
    KLAVIYO_CLIENT_SECRET: configSecret.optional(),
    /** Where Klaviyo's API answers (a fake's address in tests, a proxy). */
    KLAVIYO_API_BASE: configUrl(['http:', 'https:']).default(DEFAULT_API_BASE),
    KLAVIYO_AUTHORIZE_URL: configUrl(['http:', 'https:']).default(DEFAULT_AUTHORIZE_URL),
    /** How often a bulk import or suppression job is asked whether it has finished (ms). */
    KLAVIYO_JOB_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /** The fallback changed-since pull: how often profiles updated since the last look are read (seconds). */
    KLAVIYO_CHANGES_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  },
  ['KLAVIYO_PRIVATE_KEY', 'KLAVIYO_CLIENT_SECRET'],
);
export type KlaviyoEnvironment = ReturnType<typeof klaviyoEnvironment.read>;
