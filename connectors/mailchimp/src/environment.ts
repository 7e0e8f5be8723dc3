import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';

/** Mailchimp's environment variables (DESIGN.md §8), validated with core's when the module is registered. */
export const mailchimpEnvironment = platformEnvironment(
  {
    MAILCHIMP_API_KEY: configSecret.optional(),
    MAILCHIMP_CLIENT_ID: z.string().min(1).optional(),
    MAILCHIMP_CLIENT_SECRET: configSecret.optional(),
    MAILCHIMP_API_BASE: configUrl(['http:', 'https:']).optional(),
    /** Mailchimp's OAuth host (https://login.mailchimp.com); for proxies and tests. */
    MAILCHIMP_LOGIN_BASE: configUrl(['http:', 'https:']).optional(),
  },
  ['MAILCHIMP_API_KEY', 'MAILCHIMP_CLIENT_SECRET'],
);
