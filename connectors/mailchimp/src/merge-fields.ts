import type { SchemaReport } from '@verify-hub/core';
import type { MailchimpNames } from './merge-field-mapping';
import type { MailchimpApi } from './api';
import { MailchimpRequestError } from './errors';

export interface MergeFieldDefinition {
  tag: string;
  name: string;
  /**
   * EVDATE is `text` holding the ISO date `YYYY-MM-DD`: a Mailchimp `date` field reads and writes
   * values in the audience's display format (MM/DD/YYYY or DD/MM/YYYY), so a value read back would
   * not compare equal to the one written, and 03/04 is ambiguous. ISO text sorts as dates do.
   */
  type: 'text' | 'number';
  helpText: string;
}

export function mergeFieldDefinitions(names: MailchimpNames): MergeFieldDefinition[] {
  return [
    { tag: names.riskMergeField, name: 'Email risk', type: 'text', helpText: 'safe, risky, invalid or unknown, from the last email verification' },
    { tag: names.scoreMergeField, name: 'Email score', type: 'number', helpText: 'Deliverability score 0-100 from the last email verification' },
    { tag: names.dateMergeField, name: 'Email checked on', type: 'text', helpText: 'Date of the last email verification, YYYY-MM-DD (UTC)' },
  ];
}

/**
 * Creates the verification merge fields that are missing; idempotent. A field that already exists
 * under our tag with another type is reported as a problem, not changed. Two workers racing to
 * create a field is fine: Mailchimp's duplicate-tag answer counts as "exists". Any other refusal
 * (the audience's merge-field limit, for example) is reported with Mailchimp's `detail`. Tags need
 * no setup: Mailchimp creates a tag the first time it is applied.
 */
export async function ensureMergeFields(api: MailchimpApi, listId: string, names: MailchimpNames): Promise<SchemaReport> {
  const report: SchemaReport = { created: [], existing: [], problems: [] };
  const byTag = new Map((await api.mergeFields(listId)).map((f) => [f.tag.toUpperCase(), f]));
  for (const def of mergeFieldDefinitions(names)) {
    const found = byTag.get(def.tag);
    if (found) {
      if (found.type === def.type) report.existing.push(`merge field ${def.tag}`);
      else report.problems.push(`merge field ${def.tag} exists with type ${found.type}; verify-hub writes ${def.type} values there (rename it or choose another tag in settings.names)`);
      continue;
    }
    try {
      await api.addMergeField(listId, { tag: def.tag, name: def.name, type: def.type, public: false, help_text: def.helpText });
      report.created.push(`merge field ${def.tag} (${def.type})`);
    } catch (error) {
      if (error instanceof MailchimpRequestError && /already exists/i.test(error.detail ?? '')) {
        report.existing.push(`merge field ${def.tag}`);
        continue;
      }
      if (error instanceof MailchimpRequestError) {
        report.problems.push(`merge field ${def.tag} could not be created: ${error.detail ?? error.message}`);
        continue;
      }
      throw error;
    }
  }
  return report;
}
