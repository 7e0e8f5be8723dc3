import { z } from 'zod';
import { parseAccountUrl } from './account-url';

/**
 * A connection's settings (`ConnectionRecord.settings`, not secret): the host validates them against
 * this schema before the connector is built, and an error names the field (`settings.apiUrl`).
 */
export const ActivecampaignSettings = z.strictObject({
  /** The account's API URL, `https://<account>.api-us1.com`: the account, and its shared rate limit. */
  apiUrl: z.string().refine((value) => {
    try {
      parseAccountUrl(value);
      return true;
    } catch {
      return false;
    }
  }, 'must be an ActiveCampaign API URL like https://youraccount.api-us1.com'),
  /** The list `setup` relates the fields to (they are then shown on its contacts); absent: every list. */
  listId: z.string().regex(/^\d+$/, 'must be a list id (digits)').optional(),
});
export type ActivecampaignSettings = z.infer<typeof ActivecampaignSettings>;

/** One connection per account: `activecampaign-<account>`. */
export const activecampaignConnectionId = (account: string) => `activecampaign-${account}`;
