import { z } from 'zod';

/**
 * A connection's settings (`ConnectionRecord.settings`, not secret): the host validates them against
 * this schema before the connector is built, and an error names the field (`settings.account`).
 */
export const KlaviyoSettings = z.strictObject({
  /** The Klaviyo account the key or sign-in belongs to, as `GET /api/accounts` answered on connect. */
  account: z.string().regex(/^[A-Za-z0-9]{1,64}$/, 'must be a Klaviyo account id'),
  /** Its organisation name, for labels. */
  accountName: z.string().optional(),
});
export type KlaviyoSettings = z.infer<typeof KlaviyoSettings>;

/** One connection per account: `klaviyo-<account id>`. */
export const klaviyoConnectionId = (account: string) => `klaviyo-${account}`;
