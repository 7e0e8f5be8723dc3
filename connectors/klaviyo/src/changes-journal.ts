import { DEFAULT_VERIFICATION_FIELD_NAMES as EV, changedValues, type ContactEvent, type EventJournal, type EventJournalEntry, type Verification } from '@verify-hub/core';
import type { KlaviyoApi } from './api';
import { klaviyoProperties, storedProperties } from './mapping';
import type { ProfileResource } from './responses';

/**
 * The fallback for the flow webhook: profiles updated since the last look, read as a journal
 * (`GET /api/profiles?filter=greater-than(updated,<offset>)&sort=updated`, a page of 100 an entry,
 * the offset the last profile's `updated`), so the host keeps the offset and a lease per connection
 * and an outage is caught up. Reading starts at the time it is first started, not at the account's
 * first profile: a full sync is a run's job.
 *
 * The loop filter: the hub's own writes update profiles too. A changed profile whose address already
 * has the hub's verdict, with every ev_* property already equal to it, needs nothing and is left out;
 * only a new profile, a new address, or properties someone else changed become events. A profile the
 * hub called `unknown` is left to the hub's re-check schedule (so a changed address whose old one was
 * unknown waits for the next sync).
 */
export class KlaviyoChangesJournal implements EventJournal {
  constructor(
    private readonly api: KlaviyoApi,
    private readonly account: string,
    private readonly storedVerdict: (email: string) => Promise<Verification | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

  async earliest(): Promise<EventJournalEntry> {
    return { offset: new Date(this.now()).toISOString(), events: [], uninstalled: false };
  }

  async after(offset: string): Promise<EventJournalEntry | undefined> {
    const { page } = await this.api.profilePage({ updatedAfter: offset });
    // Only profiles after the offset, compared as instants: an entry that does not move the offset on
    // would be read again and again.
    const since = Date.parse(offset);
    const fresh = page.data.filter((profile) => Date.parse(profile.attributes.updated ?? '') > since);
    if (fresh.length === 0) return undefined;
    const events: ContactEvent[] = [];
    for (const profile of fresh) {
      const event = await this.eventOf(profile);
      if (event) events.push(event);
    }
    // Kept as Klaviyo wrote it (microseconds and all), so the next filter starts exactly there.
    return { offset: fresh[fresh.length - 1]!.attributes.updated!, events, uninstalled: false };
  }

  private async eventOf(profile: ProfileResource): Promise<ContactEvent | undefined> {
    const email = profile.attributes.email?.trim();
    if (!email) return undefined;
    const verdict = await this.storedVerdict(email);
    const stored = storedProperties(profile.attributes.properties);
    if (verdict && Object.keys(changedValues(stored, klaviyoProperties(verdict))).length === 0) return undefined;
    // An address the hub found inconclusive has no stored verdict: its re-checks are already scheduled by the hub.
    if (!verdict && stored[EV.risk] === 'unknown') return undefined;
    const updated = profile.attributes.updated ?? '';
    return {
      platform: 'klaviyo',
      kind: verdict ? 'profile_updated' : 'created',
      accountId: this.account,
      contactId: profile.id,
      email,
      occurredAt: Date.parse(updated) || this.now(),
      dedupeKey: `changed:${profile.id}:${updated}`,
    };
  }
}
