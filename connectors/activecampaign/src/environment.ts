import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';

/**
 * ActiveCampaign's environment variables, all named `ACTIVECAMPAIGN_...`: validated with core's at start
 * (a typo under the prefix stops the process), secrets never echoed. The host reads them and hands them
 * to the connector factory; nothing here reads `process.env`.
 */
export const activecampaignEnvironment = platformEnvironment(
  {
    /** The API token `verify-hub activecampaign connect|setup` use (Settings > Developer in ActiveCampaign). */
    ACTIVECAMPAIGN_API_TOKEN: configSecret.optional(),
    /**
     * Sends every call here instead of the account's own API URL (a proxy, or a fake in tests): the
     * account URL a connection was made with still names the account and its shared rate limit.
     */
    ACTIVECAMPAIGN_API_BASE: configUrl(['http:', 'https:']).optional(),
    /**
     * Requests per second the hub allows itself per account, shared by every worker: ActiveCampaign's
     * documented limit is 5 per account, whatever the key. Lower it to leave room for other apps.
     */
    ACTIVECAMPAIGN_REQUESTS_PER_SECOND: z.coerce.number().int().min(1).max(1000).default(5),
    /** Bulk imports a minute the hub allows itself per account (ActiveCampaign: 100; 20 for single-contact imports, kept at a fifth of this). */
    ACTIVECAMPAIGN_IMPORTS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(100),
    /** The first wait before a bulk import's status is read (ActiveCampaign: a second or more); it then grows. */
    ACTIVECAMPAIGN_IMPORT_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  },
  ['ACTIVECAMPAIGN_API_TOKEN'],
);
export type ActivecampaignEnvironment = ReturnType<typeof activecampaignEnvironment.read>;
