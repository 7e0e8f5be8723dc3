import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';

/** Brevo's API base (v3). */
export const DEFAULT_API_BASE = 'https://api.brevo.com/v3';

/**
 * Brevo's environment variables, all named `BREVO_...`: validated with core's at start once the
 * platform is installed (a typo under the prefix stops the process), secrets never echoed. The host
 * reads them and hands them to the connector factory; nothing here reads `process.env`.
 */
export const brevoEnvironment = platformEnvironment(
  {
    /** Where Brevo's API answers (tests and proxies point it elsewhere; `http:` for a loopback fake). */
    BREVO_API_BASE: configUrl(['http:', 'https:']).default(DEFAULT_API_BASE),
    /** The API key `verify-hub brevo connect` stores (Settings > SMTP & API > API keys). */
    BREVO_API_KEY: configSecret.optional(),
  },
  ['BREVO_API_KEY'],
);
