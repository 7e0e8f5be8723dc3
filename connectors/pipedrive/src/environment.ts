import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';

/**
 * Pipedrive's environment variables, all named `PIPEDRIVE_...`: validated with core's at start (a typo
 * under the prefix stops the process), secrets never echoed. Nothing here reads `process.env`.
 */
export const pipedriveEnvironment = platformEnvironment(
  {
    /** An API token (Personal preferences > API) for `verify-hub pipedrive connect`. */
    PIPEDRIVE_API_TOKEN: configSecret.optional(),
    /**
     * Overrides the company's `api_domain` (a proxy, or a fake's loopback address in tests). Unset, each
     * connection calls the domain Pipedrive named for it (`https://<company>.pipedrive.com`).
     */
    PIPEDRIVE_API_BASE: configUrl(['http:', 'https:']).optional(),
    /** The Marketplace app (OAuth): its client id and secret, from Developer Hub > OAuth & access scopes. */
    PIPEDRIVE_CLIENT_ID: z.string().min(1).optional(),
    PIPEDRIVE_CLIENT_SECRET: configSecret.optional(),
    /** Pipedrive's OAuth server (a fake's address in tests). */
    PIPEDRIVE_OAUTH_BASE: configUrl(['http:', 'https:']).default('https://oauth.pipedrive.com'),
    /**
     * The JWT secret of the app's custom panel (Developer Hub > App extensions). Pipedrive signs the
     * panel's iframe request with it, or with the client secret when the panel has none.
     */
    PIPEDRIVE_PANEL_JWT_SECRET: configSecret.optional(),
  },
  ['PIPEDRIVE_API_TOKEN', 'PIPEDRIVE_CLIENT_SECRET', 'PIPEDRIVE_PANEL_JWT_SECRET'],
);
export type PipedriveEnvironment = ReturnType<typeof pipedriveEnvironment.read>;
