import { z } from 'zod';
import { VerifyHubError } from '@verify-hub/core';
import type { BrevoSdk } from './api';
import type { AttributeType } from './mapping';

/** A contact as `GET /contacts` answers it (what the hub reads; the rest is kept as it came). */
export const BrevoContact = z.looseObject({
  id: z.number().int(),
  email: z.string().optional(),
  emailBlacklisted: z.boolean().optional(),
  listIds: z.array(z.number()).optional(),
  attributes: z.record(z.string(), z.unknown()).optional(),
  modifiedAt: z.string().optional(),
});
export type BrevoContact = z.infer<typeof BrevoContact>;

const ContactsPage = z.looseObject({ contacts: z.array(BrevoContact).default([]), count: z.number().int().min(0).optional() });
const Account = z.looseObject({ organization_id: z.union([z.string(), z.number()]).transform(String), email: z.string().optional(), companyName: z.string().optional() });
const Attributes = z.looseObject({ attributes: z.array(z.looseObject({ name: z.string(), category: z.string(), type: z.string().optional() })).default([]) });
const Named = z.looseObject({ id: z.number().int(), name: z.string() });
const Lists = z.looseObject({ lists: z.array(Named).default([]), count: z.number().int().optional() });
const Folders = z.looseObject({ folders: z.array(Named).default([]), count: z.number().int().optional() });
const Created = z.looseObject({ id: z.number().int() });
const Import = z.looseObject({ processId: z.number().int() });
const Process = z.looseObject({ id: z.number().int(), status: z.string() });
export const Webhook = z.looseObject({ id: z.number().int(), url: z.string(), type: z.string().optional(), events: z.array(z.string()).default([]), description: z.string().optional() });
export type Webhook = z.infer<typeof Webhook>;
const Webhooks = z.looseObject({ webhooks: z.array(Webhook).default([]) });

/** The marketing events the hub's webhook is registered for (Brevo has no contact-created event). */
export const HUB_WEBHOOK_EVENTS = ['contactUpdated', 'listAddition', 'contactDeleted'] as const;

/** Brevo's largest page of contacts (`limit` up to 1000), and of lists and folders (50). */
export const CONTACTS_PAGE_SIZE = 1000;
const LISTS_PAGE_SIZE = 50;
/** Contact ids read in one call: 500 repeated `ids=` keep the request line near 6 KB, under the 8 KB many servers take. */
export const IDS_PER_CALL = 500;

function valid<S extends z.ZodType>(schema: S, answer: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(answer ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new VerifyHubError(`Brevo's answer to ${what} is not what its API documents (${issue.path.join('.') || 'body'}: ${issue.message})`);
}

/** One import row: the contact's address and the attributes to set. */
export interface ImportRow {
  email: string;
  attributes: Record<string, string | number>;
}

/**
 * The Brevo calls verify-hub makes, each validated with zod. Nothing here ever sends
 * `emailBlacklisted: false` or `unlinkListIds`; `emailBlacklisted: true` only goes through `blocklist`,
 * which only the user's chosen clean action calls.
 */
export class BrevoApi {
  constructor(readonly sdk: BrevoSdk) {}

  async account() {
    return valid(Account, await this.sdk.call('other', 'GET /account', (c) => c.account.getAccount()), 'GET /account');
  }

  /** One page of contacts, oldest first (so paging by offset is stable while contacts are added). */
  async contactsPage(query: { offset: number; limit?: number; modifiedSince?: string; listId?: number; segmentId?: number }) {
    const request = {
      limit: query.limit ?? CONTACTS_PAGE_SIZE,
      offset: query.offset,
      sort: 'asc' as const,
      ...(query.modifiedSince ? { modifiedSince: query.modifiedSince } : {}),
      ...(query.listId ? { listIds: [query.listId] } : {}),
      ...(query.segmentId ? { segmentId: query.segmentId } : {}),
    };
    return valid(ContactsPage, await this.sdk.call('contacts', 'GET /contacts', (c) => c.contacts.getContacts(request)), 'GET /contacts');
  }

  /** The contacts of `ids` that exist, `IDS_PER_CALL` a call (the ids travel in the URL). */
  async contactsByIds(ids: number[]): Promise<BrevoContact[]> {
    const found: BrevoContact[] = [];
    for (let from = 0; from < ids.length; from += IDS_PER_CALL) {
      const part = ids.slice(from, from + IDS_PER_CALL);
      const page = await this.sdk.call('contacts', 'GET /contacts', (c) => c.contacts.getContacts({ ids: part, limit: part.length, offset: 0 }));
      found.push(...valid(ContactsPage, page, 'GET /contacts').contacts);
    }
    return found;
  }

  /** One contact by id or address (a webhook names it by address). */
  async contact(identifier: string) {
    const byEmail = identifier.includes('@');
    const answer = await this.sdk.call('contacts', 'GET /contacts/{identifier}', (c) =>
      c.contacts.getContactInfo({ identifier: byEmail ? identifier : Number(identifier), identifierType: byEmail ? 'email_id' : 'contact_id' }),
    );
    return valid(BrevoContact, answer, 'GET /contacts/{identifier}');
  }

  /** Sets attributes of one contact; lists and consent are left alone. */
  async updateAttributes(id: number, attributes: Record<string, string | number>): Promise<void> {
    await this.sdk.call('contacts', 'PUT /contacts/{identifier}', (c) => c.contacts.updateContact({ identifier: id, identifierType: 'contact_id', attributes }));
  }

  /** The clean action the user chose for invalid addresses: blocklists one contact. Never called otherwise. */
  async blocklist(id: number): Promise<void> {
    await this.sdk.call('contacts', 'PUT /contacts/{identifier}', (c) => c.contacts.updateContact({ identifier: id, identifierType: 'contact_id', emailBlacklisted: true }));
  }

  /**
   * An async import into `listId` (Brevo's import needs a list): existing contacts updated, unknown
   * attributes ignored by Brevo, empty values never sent, no notification email, no blocklist flag.
   */
  async importContacts(listId: number, rows: ImportRow[]): Promise<number> {
    const answer = await this.sdk.call('contacts', 'POST /contacts/import', (c) =>
      c.contacts.importContacts({ jsonBody: rows, listIds: [listId], updateExistingContacts: true, emptyContactsAttributes: false, disableNotification: true }),
    );
    return valid(Import, answer, 'POST /contacts/import').processId;
  }

  async processStatus(processId: number): Promise<string> {
    return valid(Process, await this.sdk.call('other', 'GET /processes/{processId}', (c) => c.process.getProcess({ processId })), 'GET /processes/{processId}').status;
  }

  async attributes() {
    return valid(Attributes, await this.sdk.call('contacts', 'GET /contacts/attributes', (c) => c.contacts.getAttributes()), 'GET /contacts/attributes').attributes;
  }

  async createAttribute(name: string, type: AttributeType): Promise<void> {
    await this.sdk.call('contacts', 'POST /contacts/attributes/normal/{name}', (c) => c.contacts.createAttribute({ attributeCategory: 'normal', attributeName: name, type }));
  }

  /** The list named `name`, looked for page by page. */
  async findList(name: string): Promise<{ id: number; name: string } | undefined> {
    for (let offset = 0; ; offset += LISTS_PAGE_SIZE) {
      const page = valid(Lists, await this.sdk.call('contacts', 'GET /contacts/lists', (c) => c.contacts.getLists({ limit: LISTS_PAGE_SIZE, offset })), 'GET /contacts/lists');
      const found = page.lists.find((list) => list.name === name);
      if (found || page.lists.length < LISTS_PAGE_SIZE) return found;
    }
  }

  async listExists(listId: number): Promise<boolean> {
    try {
      await this.sdk.call('contacts', 'GET /contacts/lists/{listId}', (c) => c.contacts.getList({ listId }));
      return true;
    } catch (error) {
      if ((error as VerifyHubError).status === 404) return false;
      throw error;
    }
  }

  /** The first folder (a list needs one), or a new `verify-hub` folder in an account that has none. */
  async folderId(): Promise<number> {
    const page = valid(Folders, await this.sdk.call('contacts', 'GET /contacts/folders', (c) => c.contacts.getFolders({ limit: LISTS_PAGE_SIZE, offset: 0 })), 'GET /contacts/folders');
    if (page.folders[0]) return page.folders[0].id;
    return valid(Created, await this.sdk.call('contacts', 'POST /contacts/folders', (c) => c.contacts.createFolder({ name: 'verify-hub' })), 'POST /contacts/folders').id;
  }

  async createList(name: string, folderId: number): Promise<number> {
    return valid(Created, await this.sdk.call('contacts', 'POST /contacts/lists', (c) => c.contacts.createList({ name, folderId })), 'POST /contacts/lists').id;
  }

  async marketingWebhooks(): Promise<Webhook[]> {
    return valid(Webhooks, await this.sdk.call('other', 'GET /webhooks', (c) => c.webhooks.getWebhooks({ type: 'marketing' })), 'GET /webhooks').webhooks;
  }

  async createWebhook(url: string, token: string, description: string): Promise<number> {
    const answer = await this.sdk.call('other', 'POST /webhooks', (c) =>
      c.webhooks.createWebhook({ url, description, type: 'marketing', events: [...HUB_WEBHOOK_EVENTS], auth: { type: 'bearer', token } }),
    );
    return valid(Created, answer, 'POST /webhooks').id;
  }

  async deleteWebhook(webhookId: number): Promise<void> {
    await this.sdk.call('other', 'DELETE /webhooks/{webhookId}', (c) => c.webhooks.deleteWebhook({ webhookId }));
  }
}
