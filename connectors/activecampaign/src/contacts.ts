import type { Contact } from '@verify-hub/core';
import type { AccountSchema } from './account-schema';
import type { ContactsPage } from './responses';

/** What `pull` keeps in `Contact.payload` for `write`: the contact's risk tags and their contactTag ids (to remove one). */
export interface ContactPayload {
  contactTags: Record<string, string>;
}

const invert = (map: Map<string, string>) => new Map([...map].map(([name, id]) => [id, name]));

/**
 * A page of ActiveCampaign contacts as the hub's contacts: the values of verify-hub's own fields
 * (`current`, from the side-loaded field values) and which `ev-*` tags each carries (`tags`), so a
 * write sends only what changed and removes a risk tag that no longer holds. Contacts with no address
 * are left out and counted.
 */
export function toContacts(page: ContactsPage, schema: AccountSchema): { contacts: Contact[]; noEmail: number } {
  const fieldName = invert(schema.fieldIds);
  const tagName = invert(schema.tagIds);
  const current = new Map<string, Record<string, string>>();
  for (const value of page.fieldValues) {
    const name = fieldName.get(value.field);
    if (!name) continue;
    current.set(value.contact, { ...current.get(value.contact), [name]: value.value ?? '' });
  }
  const tags = new Map<string, Record<string, string>>();
  for (const contactTag of page.contactTags) {
    const name = tagName.get(contactTag.tag);
    if (!name) continue;
    tags.set(contactTag.contact, { ...tags.get(contactTag.contact), [name]: contactTag.id });
  }
  const contacts: Contact[] = [];
  let noEmail = 0;
  for (const contact of page.contacts) {
    if (!contact.email.trim()) {
      noEmail++;
      continue;
    }
    const contactTags = tags.get(contact.id) ?? {};
    const payload: ContactPayload = { contactTags };
    contacts.push({ id: contact.id, email: contact.email, current: current.get(contact.id) ?? {}, tags: Object.keys(contactTags), payload });
  }
  return { contacts, noEmail };
}
