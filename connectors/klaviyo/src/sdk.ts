import type * as Klaviyo from 'klaviyo-api';

/**
 * The official SDK, loaded with the first call rather than with the module: it loads axios and every
 * API and model (about 55 MB and 0.3 s), which every `verify-hub` command that lists the platform
 * modules would otherwise pay, Klaviyo user or not.
 */
export const klaviyoSdk = (): typeof Klaviyo => require('klaviyo-api') as typeof Klaviyo;
