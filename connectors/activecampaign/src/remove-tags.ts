import type { WriteFailure } from '@verify-hub/core';
import type { ActivecampaignClient } from './api-client';
import { ActivecampaignNotFoundError, ActivecampaignRequestError } from './errors';
import { Refusal } from './responses';
import type { ContactChange } from './write-plan';

/**
 * Takes the risk tags that no longer hold off their contacts (`DELETE /contactTags/<id>`, one call
 * each: a bulk import only adds tags). Done before the import, so a rate limit or an outage here
 * (thrown: the host waits or tries the batch again) never makes the host import the same values twice;
 * a tag already gone counts as removed (a second attempt); a refusal of one fails that contact.
 */
export async function removeOldRiskTags(client: ActivecampaignClient, changes: ContactChange[]): Promise<WriteFailure[]> {
  const failures = new Map<string, WriteFailure>();
  await Promise.all(
    changes.flatMap((change) =>
      change.removeTags.map(async (tag) => {
        try {
          await client.call('DELETE', `/contactTags/${encodeURIComponent(tag.contactTagId)}`, Refusal);
        } catch (error) {
          if (error instanceof ActivecampaignNotFoundError) return;
          if (!(error instanceof ActivecampaignRequestError)) throw error;
          failures.set(change.contactId, { contactId: change.contactId, email: change.email, reason: `the old tag ${tag.name} could not be removed: ${error.message}`, retryable: false });
        }
      }),
    ),
  );
  return [...failures.values()];
}
