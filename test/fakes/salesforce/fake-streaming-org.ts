import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeSalesforce } from './fake-salesforce';
import { FakeStreaming, type FakeStreamingOptions } from './fake-streaming';

/**
 * The fake org with its Streaming API: `/cometd/<version>` on the org's own host (as Salesforce serves
 * it, with the org's session ids), and a change event for every record change the way Change Data
 * Capture publishes them: a record added (CREATE), someone's edit (`change`: UPDATE of those fields),
 * and every write of the hub (UPDATE of the EV_ fields it wrote, by the integration user): Salesforce
 * does not leave out the subscriber's own changes. As in Salesforce, only the entities selected for
 * Change Data Capture (`org.changeEvents`) publish, and only in an edition that has it: the streaming's
 * `changeDataCapture` is the org's edition (false makes it Professional, true Enterprise).
 */
export function withStreaming(org: FakeSalesforce, options: FakeStreamingOptions = {}): FakeStreaming {
  const sessions = (org as unknown as { accessTokens: Set<string> }).accessTokens;
  const streaming = new FakeStreaming({ acceptToken: (token) => sessions.has(token), ...options });
  const inner = org as unknown as { handle(req: IncomingMessage, res: ServerResponse): Promise<void> };
  const handle = inner.handle.bind(org);
  inner.handle = (req, res) => (new URL(req.url ?? '/', 'http://x').pathname.startsWith('/cometd/') ? streaming.handle(req, res) : handle(req, res));
  const entity = (id: string) => (id.startsWith('00Q') ? 'Lead' : 'Contact') as 'Contact' | 'Lead';
  Object.defineProperty(streaming, 'changeDataCapture', {
    get: () => org.changeEvents.available,
    set: (on: boolean) => void (org.organizationType = on ? 'Enterprise Edition' : 'Professional Edition'),
  });
  const publish = streaming.publish.bind(streaming);
  streaming.publish = (change) => (org.changeEvents.publishes(change.entityName) ? publish(change) : 0);

  const add = org.add.bind(org);
  org.add = (type, email, fields = {}) => {
    const record = add(type, email, fields);
    streaming.publish({ entityName: type, changeType: 'CREATE', recordIds: [record.Id], fields: { Email: email, LastName: 'Person', ...fields } });
    return record;
  };
  const change = org.change.bind(org);
  org.change = (id, fields) => {
    change(id, fields);
    streaming.publish({ entityName: entity(id), changeType: 'UPDATE', recordIds: [id], fields });
  };
  const writes = org.writesPerRecord;
  const set = writes.set.bind(writes);
  writes.set = (id, count) => {
    set(id, count);
    const record = org.records.get(id) ?? {};
    const written = Object.fromEntries(Object.entries(record).filter(([name]) => /^EV_\w+__c$/.test(name)));
    streaming.publish({ entityName: entity(id), changeType: 'UPDATE', recordIds: [id], fields: written, changedFields: [...Object.keys(written), 'LastModifiedDate', 'SystemModstamp'], commitUser: org.userId });
    return writes;
  };
  return streaming;
}
