import { z } from 'zod';

/**
 * What Mailchimp's campaign and report endpoints answer, as its Marketing API documents them (only
 * the fields the bounce source reads): GET /campaigns (`campaigns[]`: id, status, send_time,
 * recipients.list_id) and GET /reports/{campaign_id}/sent-to (`sent_to[]`: email_id, the subscriber
 * hash; email_address; status `sent`, `hard` or `soft`, the last two being bounces).
 */

export const CampaignSchema = z.looseObject({
  id: z.string(),
  status: z.string().optional(),
  /** Empty until the campaign is sent. */
  send_time: z.string().optional(),
  recipients: z.looseObject({ list_id: z.string().optional() }).optional(),
});
export type Campaign = z.infer<typeof CampaignSchema>;

export const CampaignsPageSchema = z.looseObject({
  campaigns: z.array(CampaignSchema),
  total_items: z.number().int().min(0),
});

export const SENT_TO_STATUSES = ['sent', 'hard', 'soft'] as const;

export const SentToSchema = z.looseObject({
  email_id: z.string(),
  email_address: z.string(),
  status: z.enum(SENT_TO_STATUSES),
  merge_fields: z.record(z.string(), z.unknown()).optional(),
});
export type SentTo = z.infer<typeof SentToSchema>;

export const SentToPageSchema = z.looseObject({
  sent_to: z.array(SentToSchema),
  total_items: z.number().int().min(0),
});
