import { z } from 'zod';

/**
 * ActiveCampaign API v3 answers, as far as the connector reads them (zod keeps what is named and
 * drops the rest). Ids come as strings ("42"); numbers are accepted too, and become strings.
 */
const Id = z.union([z.string(), z.number()]).transform(String);

export const Contact = z.object({
  id: Id,
  email: z.string(),
  /** When the contact last changed, with the account's offset: `2026-01-31T09:00:00-06:00`. */
  udate: z.string().nullish(),
});
export type Contact = z.infer<typeof Contact>;

export const FieldValue = z.object({ id: Id, contact: Id, field: Id, value: z.string().nullish() });
export type FieldValue = z.infer<typeof FieldValue>;

export const ContactTag = z.object({ id: Id, contact: Id, tag: Id });
export type ContactTag = z.infer<typeof ContactTag>;

/** `GET /contacts?include=fieldValues,contactTags`: the contacts, their field values and tags side-loaded. */
export const ContactsPage = z.object({
  contacts: z.array(Contact),
  fieldValues: z.array(FieldValue).optional().default([]),
  contactTags: z.array(ContactTag).optional().default([]),
});
export type ContactsPage = z.infer<typeof ContactsPage>;

/** `meta.total` of a contacts page: how many match its filters ("25000", a string). */
export const ContactsTotal = z.object({ meta: z.object({ total: z.union([z.string(), z.number()]).transform(Number) }).optional() });

export const Field = z.object({ id: Id, title: z.string(), perstag: z.string().nullish(), type: z.string().nullish() });
export type Field = z.infer<typeof Field>;
export const FieldRel = z.object({ id: Id, field: Id, relid: Id });
export type FieldRel = z.infer<typeof FieldRel>;

export const FieldsPage = z.object({
  fields: z.array(Field),
  fieldRels: z.array(FieldRel).optional().default([]),
  meta: z.object({ total: z.union([z.string(), z.number()]).transform(Number) }).optional(),
});
export const FieldCreated = z.object({ field: Field });
export const FieldRelCreated = z.object({ fieldRel: FieldRel });

export const Tag = z.object({ id: Id, tag: z.string(), tagType: z.string().nullish() });
export type Tag = z.infer<typeof Tag>;
export const TagsPage = z.object({ tags: z.array(Tag) });
export const TagCreated = z.object({ tag: Tag });

/** `GET /users/me`: whose token it is (connect checks the token with it). */
export const Me = z.object({ user: z.object({ id: Id, username: z.string().nullish(), email: z.string().nullish() }) });

/** `POST /import/bulk_import`: queued, with the batch id its status is read by. */
export const ImportQueued = z.object({ batchId: z.string().min(1), queued_contacts: z.number().optional() });

/**
 * `GET /import/info?batchId=`: `status` waiting, claimed, active, completed, failed or interrupted (or
 * `false` just after the import was queued); `success` the ids of contacts the import created,
 * `failure` the addresses it did not import.
 */
export const ImportInfo = z.object({
  status: z.union([z.string(), z.literal(false)]),
  success: z.array(Id).optional().default([]),
  failure: z.array(z.union([z.string(), z.object({ email: z.string() }).transform((f) => f.email)])).optional().default([]),
});
export type ImportInfo = z.infer<typeof ImportInfo>;

export const Webhook = z.object({
  id: Id,
  name: z.string().nullish(),
  url: z.string(),
  events: z.array(z.string()).optional().default([]),
  sources: z.array(z.string()).optional().default([]),
  listid: Id.nullish(),
});
export type Webhook = z.infer<typeof Webhook>;
export const WebhooksPage = z.object({ webhooks: z.array(Webhook) });
export const WebhookCreated = z.object({ webhook: Webhook });

/** What ActiveCampaign says when it refuses a request: `errors[].title` (422) or `message`. */
export const Refusal = z.object({
  message: z.string().optional(),
  errors: z.array(z.object({ title: z.string().optional(), detail: z.string().optional() })).optional(),
});
