import { z } from 'zod';

/** The generated 40-character keys of the person fields verify-hub writes, and the risk field's option ids. */
export const FieldKeys = z.strictObject({
  risk: z.string().min(1),
  score: z.string().min(1),
  reason: z.string().min(1),
  checkedAt: z.string().min(1),
  /** The risk field's options by label (`safe` -> 12): a single-option field stores an option's id. */
  riskOptions: z.record(z.string(), z.number().int()),
});
export type FieldKeys = z.infer<typeof FieldKeys>;

/**
 * A connection's settings (`ConnectionRecord.settings`, not secret): the host validates them against
 * this schema before the connector is built, and an error names the field (`settings.apiDomain`). Not
 * strict: what the host keeps beside them (`writeOptions`) passes through.
 */
export const PipedriveSettings = z.object({
  /** The company the token belongs to (`GET /v1/users/me`): one connection per company. */
  companyId: z.number().int().positive(),
  /** `acme` of acme.pipedrive.com, for the user's eyes. */
  companyDomain: z.string().min(1),
  /** Where this company's API answers (`https://acme.pipedrive.com`), from /users/me or the OAuth token. */
  apiDomain: z.string().url(),
  /** The user the token acts as: deliveries of our own API writes carry it (`meta.user_id`). */
  userId: z.number().int().positive(),
  /** The 2-second burst allowance Pipedrive answered at connect (`x-ratelimit-limit`), for the shared limiter. */
  burstLimit: z.number().int().positive().default(20),
  /** The saved filter (`filter_id`) a run reads when its scope is `all`; `filter:<id>` picks another. */
  filterId: z.number().int().positive().optional(),
  /** Kept by `setup` (and re-discovered by name when missing or renamed). */
  fieldKeys: FieldKeys.optional(),
  /** The webhooks setup registered (person create and change), removed on disconnect. */
  webhookIds: z.array(z.number().int()).optional(),
});
export type PipedriveSettings = z.infer<typeof PipedriveSettings>;

/** One connection per company: `pipedrive-<companyId>`. */
export const pipedriveConnectionId = (companyId: number | string) => `pipedrive-${companyId}`;
