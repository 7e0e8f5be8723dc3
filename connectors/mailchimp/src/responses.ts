import { z } from 'zod';

/** What the Mailchimp API answers, validated before use (only the fields the connector reads). */

export const MEMBER_STATUSES = ['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional', 'archived'] as const;

export const MemberSchema = z.looseObject({
  id: z.string(),
  email_address: z.string(),
  status: z.string(),
  merge_fields: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.looseObject({ id: z.number().optional(), name: z.string() })).optional(),
  last_changed: z.string().optional(),
});
export type Member = z.infer<typeof MemberSchema>;

export const MembersPageSchema = z.looseObject({
  members: z.array(MemberSchema),
  total_items: z.number().int().min(0),
});

export const MergeFieldSchema = z.looseObject({
  merge_id: z.number(),
  tag: z.string(),
  name: z.string(),
  type: z.string(),
});
export type MergeField = z.infer<typeof MergeFieldSchema>;

export const MergeFieldsPageSchema = z.looseObject({
  merge_fields: z.array(MergeFieldSchema),
  total_items: z.number().int().min(0),
});

export const BatchSubscribeResultSchema = z.looseObject({
  new_members: z.array(z.looseObject({ email_address: z.string(), id: z.string().optional() })).default([]),
  updated_members: z.array(z.looseObject({ email_address: z.string() })).default([]),
  errors: z.array(z.looseObject({ email_address: z.string().optional(), error: z.string(), error_code: z.string().optional() })).default([]),
});
export type BatchSubscribeResult = z.infer<typeof BatchSubscribeResultSchema>;

export const BATCH_STATUSES = ['pending', 'preprocessing', 'started', 'finalizing', 'finished'] as const;

export const BatchStatusSchema = z.looseObject({
  id: z.string(),
  status: z.enum(BATCH_STATUSES),
  total_operations: z.number().int().min(0).optional(),
  finished_operations: z.number().int().min(0).optional(),
  errored_operations: z.number().int().min(0).optional(),
  response_body_url: z.string().optional(),
});
export type BatchStatus = z.infer<typeof BatchStatusSchema>;

/** One entry of a `/batches` results archive. `response` is the operation's answer, as a JSON string. */
export const BatchOperationResultSchema = z.looseObject({
  status_code: z.number().int(),
  operation_id: z.string().nullable().optional(),
  response: z.string().optional(),
});
export type BatchOperationResult = z.infer<typeof BatchOperationResultSchema>;

/** The 204 answers (tags, archive) come back from the SDK as null. */
export const NoContentSchema = z.unknown();

const WebhookFlags = <K extends string>(keys: readonly K[]) => z.looseObject(Object.fromEntries(keys.map((key) => [key, z.boolean().optional()])) as Record<K, z.ZodOptional<z.ZodBoolean>>);
export const WEBHOOK_EVENTS = ['subscribe', 'unsubscribe', 'profile', 'cleaned', 'upemail', 'campaign'] as const;
export const WEBHOOK_SOURCES = ['user', 'admin', 'api'] as const;

export const WebhookSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  events: WebhookFlags(WEBHOOK_EVENTS).optional(),
  sources: WebhookFlags(WEBHOOK_SOURCES).optional(),
  /** Whether Mailchimp signs this webhook's deliveries (absent from answers of before signing). */
  signing_enabled: z.boolean().optional(),
  /** The signing secret: in the create answer only, once. */
  signing_secret: z.string().min(1).optional(),
});
export type Webhook = z.infer<typeof WebhookSchema>;
export interface WebhookSettings {
  events: Record<(typeof WEBHOOK_EVENTS)[number], boolean>;
  sources: Record<(typeof WEBHOOK_SOURCES)[number], boolean>;
}
export const WebhooksSchema = z.looseObject({ webhooks: z.array(WebhookSchema) });

/** An audience as the picker shows it. */
export const AudienceSummarySchema = z.looseObject({ id: z.string(), name: z.string(), stats: z.looseObject({ member_count: z.number().optional() }).optional() });
export type AudienceSummary = z.infer<typeof AudienceSummarySchema>;
export const AudiencesPageSchema = z.looseObject({ lists: z.array(AudienceSummarySchema), total_items: z.number().int().min(0) });

/** An audience, as far as naming a run needs it. */
export const AudienceSchema = z.looseObject({ id: z.string(), name: z.string() });
