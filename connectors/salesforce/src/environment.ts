import { z } from 'zod';
import { configSecret, configUrl, platformEnvironment } from '@verify-hub/core';
import { DEFAULT_API_VERSION, PRODUCTION_LOGIN_URL, SANDBOX_LOGIN_URL } from './settings';

/**
 * Salesforce's environment variables, all named `SALESFORCE_...`: validated with core's at start once the
 * platform is installed (a typo under the prefix stops the process), secrets never echoed. The host
 * reads them and hands them to the connector factory; nothing here reads `process.env`.
 */
export const salesforceEnvironment = platformEnvironment(
  {
    /** The External Client App's consumer key (OAuth web-server flow and JWT bearer flow). */
    SALESFORCE_CLIENT_ID: z.string().min(1).optional(),
    /** The External Client App's consumer secret (web-server flow; PKCE is used as well). */
    SALESFORCE_CLIENT_SECRET: configSecret.optional(),
    /** PEM private key whose certificate is uploaded to the External Client App: the JWT bearer flow (server to server). */
    SALESFORCE_JWT_PRIVATE_KEY: configSecret.optional(),
    /** The integration user the JWT bearer flow signs in as (`verify-hub salesforce connect`). */
    SALESFORCE_USERNAME: z.string().min(1).optional(),
    /** Production's login host (a fake's address in tests). */
    SALESFORCE_LOGIN_URL: configUrl(['http:', 'https:']).default(PRODUCTION_LOGIN_URL),
    /** Sandboxes' login host. */
    SALESFORCE_SANDBOX_LOGIN_URL: configUrl(['http:', 'https:']).default(SANDBOX_LOGIN_URL),
    /** The REST API version every call names (jsforce's own default is far older). */
    SALESFORCE_API_VERSION: z.string().regex(/^\d{2,3}\.0$/, 'must be a version such as 62.0').default(DEFAULT_API_VERSION),
  },
  ['SALESFORCE_CLIENT_SECRET', 'SALESFORCE_JWT_PRIVATE_KEY'],
);
export type SalesforceEnvironment = ReturnType<typeof salesforceEnvironment.read>;
