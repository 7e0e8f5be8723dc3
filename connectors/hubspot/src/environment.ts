import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';
import { DEFAULT_API_BASE } from './settings';

/** HubSpot's environment variables (DESIGN.md §8), validated with core's when the module is registered. */
export const hubspotEnvironment = platformEnvironment(
  {
    HUBSPOT_ACCESS_TOKEN: configSecret.optional(),
    HUBSPOT_CLIENT_ID: z.string().min(1).optional(),
    HUBSPOT_CLIENT_SECRET: configSecret.optional(),
    HUBSPOT_API_BASE: configUrl(['http:', 'https:']).default(DEFAULT_API_BASE),
    /**
     * The legacy public app's id and a developer OAuth access token with `developers-read` and
     * `developers-write`: `verify-hub hubspot actions` (workflow-action definitions API).
     */
    HUBSPOT_APP_ID: z.string().regex(/^\d+$/, 'must be the numeric app id').optional(),
    HUBSPOT_DEVELOPER_TOKEN: configSecret.optional(),
  },
  ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_CLIENT_SECRET', 'HUBSPOT_DEVELOPER_TOKEN'],
);
