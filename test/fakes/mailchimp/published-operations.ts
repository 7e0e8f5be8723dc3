import { z } from 'zod';

/**
 * Mailchimp Marketing API 3.0 operations the connector calls, written out by hand from the published
 * description as the official SDK (@mailchimp/mailchimp_marketing, Apache-2.0, generated from it) defines
 * each method's parameters and body: query parameters outside an operation's list and body members its
 * schema does not define are refused, as are missing required ones and wrong types. Campaign reports
 * (the bounce source) are checked by their fake's own rules only.
 */
const fields = ['fields', 'exclude_fields'];
const EmailStatus = z.enum(['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional']);
const MergeFields = z.record(z.string(), z.union([z.string(), z.number(), z.record(z.string(), z.string())]));
const MemberOptional = {
  email_type: z.string().optional(),
  merge_fields: MergeFields.optional(),
  interests: z.record(z.string(), z.boolean()).optional(),
  language: z.string().optional(),
  vip: z.boolean().optional(),
  location: z.strictObject({ latitude: z.number(), longitude: z.number() }).partial().optional(),
  marketing_permissions: z.array(z.strictObject({ marketing_permission_id: z.string(), enabled: z.boolean() })).optional(),
  ip_signup: z.string().optional(),
  timestamp_signup: z.string().optional(),
  ip_opt: z.string().optional(),
  timestamp_opt: z.string().optional(),
};

/** `POST /lists/{list_id}` (batch subscribe or update: `members` up to 500). */
const BatchListMembers = z.strictObject({
  // Its limit of 500 members is the fake's own rule, answered in Mailchimp's words.
  members: z.array(z.strictObject({ email_address: z.string(), status: EmailStatus.optional(), status_if_new: EmailStatus.optional(), tags: z.array(z.string()).optional(), ...MemberOptional })),
  sync_tags: z.boolean().optional(),
  update_existing: z.boolean().optional(),
});
/** `PATCH /lists/{list_id}/members/{subscriber_hash}`. */
const UpdateListMember = z.strictObject({ email_address: z.string().optional(), status_if_new: EmailStatus.optional(), status: EmailStatus.optional(), ...MemberOptional });
/** `POST /lists/{list_id}/members/{subscriber_hash}/tags`. */
const MemberTags = z.strictObject({ tags: z.array(z.strictObject({ name: z.string(), status: z.enum(['active', 'inactive']) })), is_syncing: z.boolean().optional() });
/** `POST /lists/{list_id}/merge-fields`. */
const AddMergeField = z.strictObject({
  name: z.string(),
  type: z.enum(['text', 'number', 'address', 'phone', 'date', 'url', 'imageurl', 'radio', 'dropdown', 'birthday', 'zip']),
  tag: z.string().optional(),
  required: z.boolean().optional(),
  default_value: z.string().optional(),
  public: z.boolean().optional(),
  display_order: z.number().int().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  help_text: z.string().optional(),
});
/** `POST /batches`. */
const StartBatch = z.strictObject({
  operations: z.array(z.strictObject({ method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']), path: z.string(), params: z.record(z.string(), z.unknown()).optional(), body: z.string().optional(), operation_id: z.string().optional() })),
});

interface PublishedOperation {
  name: string;
  method: string;
  path: RegExp;
  query: string[];
  body?: z.ZodType;
}

export const AUDIENCE_OPERATIONS: PublishedOperation[] = [
  { name: 'get lists', method: 'GET', path: /^\/lists$/, query: [...fields, 'count', 'offset', 'before_date_created', 'since_date_created', 'before_campaign_last_sent', 'since_campaign_last_sent', 'email', 'sort_field', 'sort_dir', 'has_ecommerce_store', 'include_total_contacts'] },
  { name: 'get list', method: 'GET', path: /^\/lists\/[^/]+$/, query: [...fields, 'include_total_contacts'] },
  { name: 'batch list members', method: 'POST', path: /^\/lists\/[^/]+$/, query: ['skip_merge_validation', 'skip_duplicate_check'], body: BatchListMembers },
  {
    name: 'get list members', method: 'GET', path: /^\/lists\/[^/]+\/members$/,
    query: [...fields, 'count', 'offset', 'email_type', 'status', 'since_timestamp_opt', 'before_timestamp_opt', 'since_last_changed', 'before_last_changed', 'unique_email_id', 'vip_only', 'interest_category_id', 'interest_ids', 'interest_match', 'sort_field', 'sort_dir', 'since_last_campaign', 'unsubscribed_since'],
  },
  { name: 'get list member', method: 'GET', path: /^\/lists\/[^/]+\/members\/[^/]+$/, query: fields },
  { name: 'update list member', method: 'PATCH', path: /^\/lists\/[^/]+\/members\/[^/]+$/, query: ['skip_merge_validation'], body: UpdateListMember },
  { name: 'archive list member', method: 'DELETE', path: /^\/lists\/[^/]+\/members\/[^/]+$/, query: [] },
  { name: 'update list member tags', method: 'POST', path: /^\/lists\/[^/]+\/members\/[^/]+\/tags$/, query: [], body: MemberTags },
  { name: 'get list merge fields', method: 'GET', path: /^\/lists\/[^/]+\/merge-fields$/, query: [...fields, 'count', 'offset', 'type', 'required'] },
  { name: 'add list merge field', method: 'POST', path: /^\/lists\/[^/]+\/merge-fields$/, query: [], body: AddMergeField },
  { name: 'get segment members', method: 'GET', path: /^\/lists\/[^/]+\/segments\/[^/]+\/members$/, query: [...fields, 'count', 'offset', 'include_cleaned', 'include_transactional', 'include_unsubscribed'] },
  { name: 'start batch', method: 'POST', path: /^\/batches$/, query: [], body: StartBatch },
  { name: 'get batch', method: 'GET', path: /^\/batches\/[^/]+$/, query: fields },
];

/** The operation a request is, and how it breaks its published description (undefined when it is not one of them). */
export function unpublishedOperation(method: string, path: string, query: URLSearchParams, body: unknown): { operation: string; problem?: string } | undefined {
  const clean = `/${path.replace(/^\/+/, '').replace(/\/+$/, '')}`;
  const operation = AUDIENCE_OPERATIONS.find((o) => o.method === method && o.path.test(clean));
  if (!operation) return undefined;
  const extra = [...query.keys()].find((name) => !operation.query.includes(name));
  if (extra) return { operation: operation.name, problem: `query: ${extra} is not a parameter of ${operation.name}` };
  const parsed = operation.body?.safeParse(body);
  if (!parsed || parsed.success) return { operation: operation.name };
  const issue = parsed.error.issues[0]!;
  return { operation: operation.name, problem: `${issue.path.join('.') || 'body'}: ${issue.message}` };
}
