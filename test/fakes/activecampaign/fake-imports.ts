import { randomUUID } from 'node:crypto';
import { ok, refused, type FakeAnswer } from './fake-answer';
import type { FakeStore } from './fake-store';

/** ActiveCampaign's documented import limits. */
export const MAX_IMPORT_CONTACTS = 250;
export const MAX_IMPORT_BYTES = 400_000;

interface Batch {
  id: string;
  status: 'waiting' | 'active' | 'completed' | 'failed';
  createdAt: number;
  success: string[];
  failure: string[];
}

export interface ImportRecords {
  /** Contacts per accepted import, in order. */
  sizes: number[];
  /** Imports sent without `exclude_automations: true`: each would have run the account's automations. Must stay 0. */
  automationTriggering: number;
  /** Contacts of imports that carried `subscribe` or `unsubscribe`: a list status change. Must stay 0. */
  listStatusChanges: { email: string; what: string }[];
  /** How many imports wrote each contact's fields or tags (by contact id). */
  writesPerContact: Map<string, number>;
  /** Contacts an import created (an address no contact had). */
  created: string[];
}

/**
 * Bulk imports (`POST /import/bulk_import`, `GET /import/info`): at most 250 contacts and 400,000
 * bytes a call; queued, then applied a little later (`delayMs`), so a status read at once says `false`
 * (as ActiveCampaign's does within the first second), then `active`, then `completed` with the ids of
 * contacts it created (`success`) and the addresses it refused (`failure`: a malformed address, or one
 * the test marks with `refuseAddress`). An existing contact is found by address; its fields are set by
 * id and its tags added by name (a tag is made when missing); nothing is ever removed by an import.
 */
export class FakeImports {
  readonly records: ImportRecords = { sizes: [], automationTriggering: 0, listStatusChanges: [], writesPerContact: new Map(), created: [] };
  private readonly batches = new Map<string, Batch>();
  readonly refusedAddresses = new Set<string>();
  /** Statuses the next imports end with instead of `completed` (nothing of them applied). */
  readonly endings: ('failed' | 'interrupted')[] = [];
  delayMs = 30;

  constructor(private readonly store: FakeStore) {}

  start(body: Record<string, unknown>, bytes: number): FakeAnswer {
    if (bytes > MAX_IMPORT_BYTES) return refused(413, `Payload exceeds ${MAX_IMPORT_BYTES} bytes`, 'payload_too_large');
    const contacts = body.contacts;
    if (!Array.isArray(contacts) || contacts.length === 0) return { status: 400, body: { success: 0, message: "'contacts' is a required field." } };
    if (contacts.length > MAX_IMPORT_CONTACTS) return { status: 400, body: { success: 0, message: `A maximum of ${MAX_IMPORT_CONTACTS} contacts may be imported at once.` } };
    for (const [i, c] of (contacts as Record<string, unknown>[]).entries()) {
      if (typeof c.email !== 'string' || !c.email) return { status: 400, body: { success: 0, message: `contacts[${i}].email is a required field.` } };
    }
    if (body.exclude_automations !== true) this.records.automationTriggering++;
    for (const c of contacts as Record<string, unknown>[]) {
      for (const what of ['subscribe', 'unsubscribe']) if (c[what] !== undefined) this.records.listStatusChanges.push({ email: String(c.email), what });
    }
    const batch: Batch = { id: randomUUID(), status: 'waiting', createdAt: Date.now(), success: [], failure: [] };
    this.batches.set(batch.id, batch);
    this.records.sizes.push(contacts.length);
    const ending = this.endings.shift();
    setTimeout(() => (ending ? (batch.status = 'failed') : this.apply(batch, contacts as Record<string, unknown>[])), this.delayMs);
    return ok({ success: 1, queued_contacts: contacts.length, batchId: batch.id });
  }

  info(query: URLSearchParams): FakeAnswer {
    const id = query.get('batchId');
    if (!id) return { status: 400, body: { success: 0, message: "'batchId' is a required field." } };
    const batch = this.batches.get(id);
    if (!batch) return { status: 404, body: { success: 0, message: 'Batch not found' } };
    // Within its first moments a batch has no status yet: ActiveCampaign answers `false`.
    const status = batch.status === 'waiting' && Date.now() - batch.createdAt < this.delayMs / 2 ? false : batch.status;
    return ok({ status, success: batch.success, failure: batch.failure });
  }

  private apply(batch: Batch, contacts: Record<string, unknown>[]): void {
    batch.status = 'active';
    for (const entry of contacts) {
      const email = String(entry.email);
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || this.refusedAddresses.has(email.toLowerCase())) {
        batch.failure.push(email);
        continue;
      }
      let contact = this.store.byEmail(email);
      if (!contact) {
        contact = this.store.addContact(email);
        batch.success.push(contact.id);
        this.records.created.push(contact.id);
      }
      for (const field of (entry.fields ?? []) as { id: number | string; value: string }[]) {
        if (this.store.fields.has(String(field.id))) contact.fields.set(String(field.id), String(field.value ?? ''));
      }
      for (const tag of (entry.tags ?? []) as string[]) this.store.tagContact(contact, tag);
      this.store.touch(contact);
      this.records.writesPerContact.set(contact.id, (this.records.writesPerContact.get(contact.id) ?? 0) + 1);
    }
    batch.status = 'completed';
  }
}
