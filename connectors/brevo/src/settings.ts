import { z } from 'zod';

/** The dedicated list imports go to: Brevo's import needs one, and no automation should watch it. */
export const DEFAULT_LIST_NAME = 'verify-hub write-back (no automations)';

/**
 * A connection's settings (`ConnectionRecord.settings`, not secret): the host validates them against
 * this schema before the connector is built, and an error names the field (`settings.account`).
 */
export const BrevoSettings = z.strictObject({
  /** The Brevo organisation the API key belongs to (`GET /account`'s `organization_id`). */
  account: z.string().min(1),
  /** The dedicated verify-hub list's id, once `setup` (or connect) made or found it. */
  listId: z.number().int().positive().optional(),
  /** Its name: found again by name when the id is unknown. */
  listName: z.string().min(1).max(100).default(DEFAULT_LIST_NAME),
  /**
   * `import` (default): bulk writes through `POST /contacts/import` into the dedicated list; `update`:
   * one `PUT /contacts/{id}` a contact (no list touched, 10 a second). Batches of at most
   * `directWriteLimit` contacts (webhook events) always go one by one.
   */
  writeMode: z.enum(['import', 'update']).default('import'),
  directWriteLimit: z.number().int().min(0).max(100).default(10),
  /** How long a write waits for its import to show in read-backs before counting what is missing as failed. */
  importWaitSeconds: z.number().int().min(1).max(3600).default(600),
});
export type BrevoSettings = z.infer<typeof BrevoSettings>;

/** One connection per Brevo organisation: `brevo-<organization_id>`. */
export const brevoConnectionId = (account: string) => `brevo-${account}`;
