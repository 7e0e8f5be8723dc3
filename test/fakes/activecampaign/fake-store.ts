/**
 * The data of the fake ActiveCampaign account: contacts, custom fields and their list relations, tags and
 * contact tags, list memberships. Dates are written as ActiveCampaign writes them, in the account's
 * time zone with its offset (`2026-01-31T09:00:00-06:00`), so readers must parse offsets.
 */
export interface FakeContact {
  id: string;
  email: string;
  cdate: string;
  udate: string;
  /** Value by field id. */
  fields: Map<string, string>;
  /** List id -> status (1 active, 2 unsubscribed): only the test (standing for the user) changes it. */
  lists: Map<string, number>;
}

export interface FakeField {
  id: string;
  title: string;
  perstag: string;
  type: string;
}

export interface FakeTag {
  id: string;
  tag: string;
  tagType: string;
}

const OFFSET_MS = -6 * 3_600_000;

/** `2026-01-31T09:00:00-06:00`: an instant in the account's time zone (UTC-6), as ActiveCampaign dates read. */
export function accountTime(ms: number): string {
  return `${new Date(ms + OFFSET_MS).toISOString().slice(0, 19)}-06:00`;
}

export class FakeStore {
  readonly contacts = new Map<string, FakeContact>();
  readonly fields = new Map<string, FakeField>();
  /** fieldRel id -> { field, relid } (relid 0: every list). */
  readonly fieldRels = new Map<string, { field: string; relid: string }>();
  readonly tags = new Map<string, FakeTag>();
  /** contactTag id -> { contact, tag }. */
  readonly contactTags = new Map<string, { contact: string; tag: string }>();
  private seq = { contact: 0, field: 0, rel: 0, tag: 0, contactTag: 0 };
  /** Indexes, so a 25,000-contact account answers as fast as a small one. */
  private readonly idByEmail = new Map<string, string>();
  private readonly contactTagIds = new Map<string, Set<string>>();
  /** The clock contacts' dates are taken from (tests move it to make "changed since" cases). */
  now: () => number = () => Date.now();

  addContact(email: string, lists: string[] = []): FakeContact {
    const at = accountTime(this.now());
    const contact: FakeContact = { id: String(++this.seq.contact), email, cdate: at, udate: at, fields: new Map(), lists: new Map(lists.map((l) => [l, 1])) };
    this.contacts.set(contact.id, contact);
    this.idByEmail.set(email.toLowerCase(), contact.id);
    return contact;
  }

  byEmail(email: string): FakeContact | undefined {
    const id = this.idByEmail.get(email.trim().toLowerCase());
    return id === undefined ? undefined : this.contacts.get(id);
  }

  /** The user changes a contact's address in ActiveCampaign. */
  changeEmail(contact: FakeContact, email: string): void {
    this.idByEmail.delete(contact.email.toLowerCase());
    contact.email = email;
    this.idByEmail.set(email.toLowerCase(), contact.id);
    this.touch(contact);
  }

  touch(contact: FakeContact): void {
    contact.udate = accountTime(this.now());
  }

  addField(input: Omit<FakeField, 'id'>): FakeField {
    const field = { id: String(++this.seq.field), ...input };
    this.fields.set(field.id, field);
    return field;
  }

  relate(field: string, relid: string): { id: string; field: string; relid: string } {
    const rel = { id: String(++this.seq.rel), field, relid };
    this.fieldRels.set(rel.id, { field, relid });
    return rel;
  }

  addTag(name: string): FakeTag {
    const tag = { id: String(++this.seq.tag), tag: name, tagType: 'contact' };
    this.tags.set(tag.id, tag);
    return tag;
  }

  tagByName(name: string): FakeTag | undefined {
    return [...this.tags.values()].find((t) => t.tag.toLowerCase() === name.toLowerCase());
  }

  /** Adds a tag to a contact (a no-op when it has it); the tag is made when the account has none of that name. */
  tagContact(contact: FakeContact, name: string): void {
    const tag = this.tagByName(name) ?? this.addTag(name);
    if (this.contactTagsOf(contact.id).some(([, ct]) => ct.tag === tag.id)) return;
    const id = String(++this.seq.contactTag);
    this.contactTags.set(id, { contact: contact.id, tag: tag.id });
    this.contactTagIds.set(contact.id, (this.contactTagIds.get(contact.id) ?? new Set()).add(id));
    this.touch(contact);
  }

  /** Takes a tag off its contact; false when there is no such contact tag. */
  untag(contactTagId: string): boolean {
    const ct = this.contactTags.get(contactTagId);
    if (!ct) return false;
    this.contactTags.delete(contactTagId);
    this.contactTagIds.get(ct.contact)?.delete(contactTagId);
    const contact = this.contacts.get(ct.contact);
    if (contact) this.touch(contact);
    return true;
  }

  /** A contact's contact tags: [contactTag id, { contact, tag }]. */
  contactTagsOf(contactId: string): [string, { contact: string; tag: string }][] {
    return [...(this.contactTagIds.get(contactId) ?? [])].map((id) => [id, this.contactTags.get(id)!]);
  }

  /** The names of the tags a contact carries. */
  tagsOf(contactId: string): string[] {
    return this.contactTagsOf(contactId).map(([, ct]) => this.tags.get(ct.tag)!.tag);
  }

  /** A field's value on a contact, by the field's personalization tag. */
  valueOf(contact: FakeContact, perstag: string): string | undefined {
    const field = [...this.fields.values()].find((f) => f.perstag === perstag);
    return field ? contact.fields.get(field.id) : undefined;
  }
}
