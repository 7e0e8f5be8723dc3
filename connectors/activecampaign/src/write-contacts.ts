import type { CallLimiter, WriteFailure, WriteProgress, WriteReport } from '@verify-hub/core';
import type { AccountSchema } from './account-schema';
import type { ActivecampaignClient } from './api-client';
import { runBulkImport, type ImportEntry, type ImportPolling } from './bulk-import';
import { EV_FIELDS } from './field-mapping';
import { contactsById } from './list-contacts';
import { removeOldRiskTags } from './remove-tags';
import type { ContactChange, WritePlan } from './write-plan';

export interface WriteLimiters {
  /** Imports of several contacts: 100 a minute per account. */
  imports: CallLimiter;
  /** Imports of one contact: 20 a minute per account. */
  singleImports: CallLimiter;
}

/** The import entry of a change: its changed fields by id, and the risk tag it lacks. */
function entryOf(change: ContactChange, schema: AccountSchema): ImportEntry | string {
  const fields: { id: number; value: string }[] = [];
  for (const [name, value] of Object.entries(change.fields)) {
    const id = schema.fieldIds.get(name);
    if (!id) return `ActiveCampaign has no field for ${EV_FIELDS.find((f) => f.name === name)?.title ?? name}: run verify-hub activecampaign setup`;
    fields.push({ id: Number(id), value });
  }
  return { email: change.email, ...(fields.length ? { fields } : {}), ...(change.addTag ? { tags: [change.addTag] } : {}) };
}

/**
 * Writes a plan: first the risk tags that no longer hold are removed (`removeOldRiskTags`), then the
 * changed fields and the missing risk tag of every contact go in one bulk import (the host keeps a
 * batch within its 250 contacts). A contact the import did not take is reported with ActiveCampaign's
 * reason; an address that had left its contact (the import made a new contact for it) is reported
 * too. A dry run sends nothing. An import a replay of this write finds in `progress` is waited for, not sent again.
 */
export async function writeContacts(client: ActivecampaignClient, limiters: WriteLimiters, schema: AccountSchema, plan: WritePlan, polling: ImportPolling, options: { dryRun: boolean; progress?: WriteProgress }): Promise<WriteReport> {
  if (options.dryRun) return { written: plan.changes.length, unchanged: plan.unchanged, failed: [] };
  const failed: WriteFailure[] = await removeOldRiskTags(client, plan.changes);
  const untagged = new Set(failed.map((f) => f.contactId));
  const entries: ImportEntry[] = [];
  const imported: ContactChange[] = [];
  for (const change of plan.changes) {
    if (untagged.has(change.contactId) || (Object.keys(change.fields).length === 0 && !change.addTag)) continue;
    const entry = entryOf(change, schema);
    if (typeof entry === 'string') failed.push({ contactId: change.contactId, email: change.email, reason: entry, retryable: false });
    else {
      entries.push(entry);
      imported.push(change);
    }
  }
  if (entries.length) {
    const outcome = await runBulkImport(client, entries.length === 1 ? limiters.singleImports : limiters.imports, entries, polling, options.progress);
    const strays = await strayAddresses(client, schema, outcome.created, imported);
    for (const change of imported) {
      const email = change.email.toLowerCase();
      if (outcome.failed.has(email)) failed.push({ contactId: change.contactId, email: change.email, reason: `ActiveCampaign did not import this contact (import ${outcome.batchId})`, retryable: false });
      else if (strays.has(email)) failed.push({ contactId: change.contactId, email: change.email, reason: `the contact no longer had this address: ActiveCampaign's import ${outcome.batchId} made a new contact for it (on no list)`, retryable: false });
    }
  }
  const failedIds = new Set(failed.map((f) => f.contactId));
  return { written: plan.changes.filter((c) => !failedIds.has(c.contactId)).length, unchanged: plan.unchanged, failed };
}

/**
 * Addresses of the contacts an import created that are not the contacts it was sent for. Asked after
 * the import is applied: a failure here is not thrown (the host would import the batch again), the
 * new contacts then go unreported.
 */
async function strayAddresses(client: ActivecampaignClient, schema: AccountSchema, created: string[], sent: ContactChange[]): Promise<Set<string>> {
  const sentIds = new Set(sent.map((c) => c.contactId));
  const unexpected = created.filter((id) => !sentIds.has(id));
  if (!unexpected.length) return new Set();
  try {
    return new Set((await contactsById(client, schema, unexpected)).map((c) => c.email.toLowerCase()));
  } catch {
    return new Set();
  }
}
