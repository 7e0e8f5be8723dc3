import { z } from 'zod';
import { InputError, type ConnectionRecord } from '@verify-hub/core';

export const PRODUCTION_LOGIN_URL = 'https://login.salesforce.com';
export const SANDBOX_LOGIN_URL = 'https://test.salesforce.com';
/** Named on every call: jsforce's default (50.0) predates Bulk API 2.0 query (47+ is enough, 62.0 is Winter '25). */
export const DEFAULT_API_VERSION = '62.0';
/** Above this many records an object is read with a Bulk API 2.0 query job instead of REST query pages. */
export const DEFAULT_BULK_QUERY_THRESHOLD = 50_000;
/** Above this many changed records in one write, a Bulk API 2.0 ingest job replaces sObject Collections calls. */
export const DEFAULT_BULK_WRITE_THRESHOLD = 2_000;
/** Calls of the org's rolling 24-hour allocation left for its other integrations unless the user sets more. */
export const DEFAULT_API_HEADROOM = 1_000;

export const SALESFORCE_OBJECTS = ['Contact', 'Lead'] as const;
export type SalesforceObject = (typeof SALESFORCE_OBJECTS)[number];

/** A custom field's API name on Contact/Lead: letters, digits, single underscores, ending in `__c`. */
const customField = z.string().regex(/^[A-Za-z][A-Za-z0-9]*(_[A-Za-z0-9]+)*__c$/, 'must be a custom field API name such as Email_Status__c');

/**
 * A connection's settings (`ConnectionRecord.settings`, not secret): the host validates them against
 * this schema before the connector is built, and an error names the field (`settings.instanceUrl`).
 */
export const SalesforceSettings = z.strictObject({
  /** The org (18-character id from the token's identity URL): one connection per org. */
  orgId: z.string().regex(/^00D[A-Za-z0-9]{12,15}$/, 'must be a Salesforce org id (00D...)'),
  /** The integration user the token belongs to (the permission set is assigned to it). */
  userId: z.string().regex(/^005[A-Za-z0-9]{12,15}$/, 'must be a Salesforce user id (005...)'),
  /** The org's own API host, as the token answer gave it. */
  instanceUrl: z.url(),
  /** Production's or a sandbox's login host: refreshes and JWT assertions go there. */
  loginUrl: z.url(),
  apiVersion: z.string().regex(/^\d{2,3}\.0$/, 'must be a version such as 62.0').default(DEFAULT_API_VERSION),
  /** How the connection signs in: `oauth` (web-server flow, refresh token) or `jwt` (JWT bearer, server to server). */
  auth: z.enum(['oauth', 'jwt']),
  /** The JWT bearer flow's subject. */
  username: z.string().min(1).optional(),
  /** What `all` reads: Contacts and Leads by default. */
  objects: z.array(z.enum(SALESFORCE_OBJECTS)).min(1).default([...SALESFORCE_OBJECTS]),
  bulkQueryThreshold: z.number().int().positive().default(DEFAULT_BULK_QUERY_THRESHOLD),
  bulkWriteThreshold: z.number().int().positive().default(DEFAULT_BULK_WRITE_THRESHOLD),
  /** API calls of the org's daily allocation a run never uses: it pauses before reaching them. */
  apiHeadroom: z.number().int().min(0).default(DEFAULT_API_HEADROOM),
  /**
   * The clean action for invalid addresses when the run asks for `archive`: this picklist or text
   * field is set to `invalidStatusValue` (HasOptedOutOfEmail is the `unsubscribe` action).
   */
  invalidStatusField: customField.optional(),
  invalidStatusValue: z.string().min(1).max(255).default('Invalid email'),
});
export type SalesforceSettings = z.infer<typeof SalesforceSettings>;

/** A token pair (web-server flow) or a JWT-issued access token; never logged. */
export const SalesforceCredentials = z.object({
  accessToken: z.string().min(1, 'is required'),
  refreshToken: z.string().min(1).optional(),
  /**
   * Where the last `changed` run finished paging (ISO, SystemModstamp): the next one reads what changed
   * after it. Kept with the credentials because a connector can save nothing else of its connection.
   */
  changedWatermark: z.iso.datetime().optional(),
});
export type SalesforceCredentials = z.infer<typeof SalesforceCredentials>;

/** One connection per org: `salesforce-<orgId>`. */
export const salesforceConnectionId = (orgId: string) => `salesforce-${orgId}`;

/** The stored credentials, validated: an error names the field, never a value. */
export function readCredentials(connection: ConnectionRecord): SalesforceCredentials {
  const parsed = SalesforceCredentials.safeParse(connection.credentials ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(['credentials', ...issue.path.map(String)].join('.'), issue.message);
  }
  return parsed.data;
}
