import { AuthError, QuotaError, TransientError, parseScope, type ContactResult } from '@verify-hub/core';
import { FIELD_API_NAMES, NOT_CHECKED, PERMISSION_SET } from '@verify-hub/connector-salesforce';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import { openConnector, verdict } from './helpers';

/** Every page of a scope, as the pager reads them. */
async function pullAll(connector: ReturnType<typeof openConnector>['connector'], scope: string) {
  const contacts = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await connector.pull(parseScope(scope), cursor);
    contacts.push(...page.contacts);
    cursor = page.next;
    pages++;
  } while (cursor && pages < 1000);
  return { contacts, pages };
}

describe('Salesforce connector against the fake org', () => {
  let fake: FakeSalesforce;
  beforeEach(async () => {
    fake = await new FakeSalesforce().start();
  });
  afterEach(async () => {
    await fake.stop();
  });

  it('setup creates the fields on Contact and Lead and the permission set, assigned; the fields are invisible until then; a second setup creates nothing', async () => {
    const { connector } = openConnector(fake);
    fake.add('Contact', 'a@example.com');
    const first = await connector.ensureSchema();
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(expect.arrayContaining(['field Contact.EV_Risk__c', 'field Lead.EV_Checked_At__c', expect.stringMatching(/^permission set Verify_Hub_Fields \(read and edit on 18 fields\)/), expect.stringMatching(/assigned to the API user/)]));
    expect(fake.customFields.size).toBe(18);
    expect(fake.customFields.get('Lead.EV_Disposable__c')?.values).toEqual(['true', 'false', NOT_CHECKED]);
    expect(fake.permissionSets.get(PERMISSION_SET.name)?.fieldPermissions).toHaveLength(18);
    expect(fake.assignments.has(PERMISSION_SET.name)).toBe(true);
    expect([...fake.versions]).toEqual(['62.0']);
    const calls = fake.apiCalls;
    const again = await connector.ensureSchema();
    expect(again.created).toEqual([]);
    // Already visible: two describe calls, no Metadata API call.
    expect(fake.apiCalls - calls).toBe(2);
  });

  it('the classic failure: fields that exist without field permissions are invisible, and setup grants them', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    fake.assignments.clear();
    const contact = fake.add('Contact', 'b@example.com');
    await expect(connector.pull(parseScope('all'))).rejects.toThrow(/No such column 'EV_Risk__c'/);
    const report = await connector.ensureSchema();
    expect(report.created).toEqual([expect.stringMatching(/assigned to the API user/)]);
    expect((await connector.pull(parseScope('contacts'))).contacts.map((c) => c.id)).toEqual([contact.Id]);
  });

  it('pulls Contacts then Leads in REST pages of 2,000 by nextRecordsUrl, converted leads and records without email left out', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    for (let i = 0; i < 4500; i++) fake.add('Contact', `c${i}@example.com`);
    for (let i = 0; i < 300; i++) fake.add('Lead', `l${i}@example.com`);
    fake.add('Lead', 'converted@example.com', { IsConverted: true });
    fake.add('Contact', null);
    expect(await connector.estimateTotal(parseScope('all'))).toBe(4800);
    const { contacts } = await pullAll(connector, 'all');
    expect(contacts).toHaveLength(4800);
    expect(new Set(contacts.map((c) => c.id)).size).toBe(4800);
    expect(fake.callsTo(/\/query\/01g/)).toHaveLength(2);
    expect(fake.bulk.queryJobs.size).toBe(0);
    expect(contacts[0]!.current).toMatchObject({ EV_Risk__c: null, HasOptedOutOfEmail: false });
  });

  it('above the threshold the rest of an object is a Bulk API 2.0 query job, paged by Sforce-Locator', async () => {
    const { connector } = openConnector(fake, { bulkQueryThreshold: 3000 });
    await connector.ensureSchema();
    for (let i = 0; i < 12_345; i++) fake.add('Contact', `c${i}@example.com`);
    for (let i = 0; i < 10; i++) fake.add('Lead', `l${i}@example.com`);
    const { contacts } = await pullAll(connector, 'all');
    expect(contacts).toHaveLength(12_355);
    expect(new Set(contacts.map((c) => c.id)).size).toBe(12_355);
    expect(fake.bulk.queryJobs.size).toBe(1);
    // 2,000 by REST, then 10,345 in Bulk pages of 5,000.
    expect(fake.callsTo(/\/jobs\/query\/750\w+\/results$/)).toHaveLength(3);
  });

  it('a user SOQL condition is validated read-only and applied; changed-since reads by SystemModstamp', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    fake.add('Contact', 'web@example.com', { LeadSource: 'Web' });
    fake.add('Contact', 'phone@example.com', { LeadSource: 'Phone' });
    expect((await pullAll(connector, "contacts:LeadSource = 'Web'")).contacts.map((c) => c.email)).toEqual(['web@example.com']);
    for (const bad of ['Email != null LIMIT 1', 'Email != null FOR UPDATE', "Email != null) OR (Id != null", 'Id != null; DELETE FROM Contact', 'ORDER BY Id']) {
      expect(() => connector.checkScope(parseScope(`contacts:${bad}`))).toThrow(expect.objectContaining({ field: 'scope' }));
    }
    const late = fake.add('Lead', 'late@example.com');
    fake.change(late.Id, {});
    const changed = await pullAll(connector, `changed-since:${new Date(Date.parse(fake.records.get(late.Id)!.SystemModstamp as string) - 500).toISOString()}`);
    expect(changed.contacts.map((c) => c.email)).toEqual(['late@example.com']);
  });

  it('writes only changed values through sObject Collections, 200 a call, reading each record\'s error', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    for (let i = 0; i < 450; i++) fake.add(i % 2 ? 'Lead' : 'Contact', `p${i}@example.com`);
    const { contacts } = await pullAll(connector, 'all');
    const failing = contacts[7]!.id;
    fake.failRecordOnce(failing, 'UNABLE_TO_LOCK_ROW');
    const results: ContactResult[] = contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'safe') }));
    const report = await connector.write(results, {});
    expect(report.written).toBe(449);
    expect(report.failed).toEqual([expect.objectContaining({ contactId: failing, retryable: true, reason: expect.stringMatching(/^UNABLE_TO_LOCK_ROW/) })]);
    expect(fake.collectionSizes).toEqual([200, 200, 50]);
    const stored = fake.records.get(contacts[0]!.id)!;
    expect(stored).toMatchObject({ EV_Risk__c: 'safe', EV_Score__c: 92, EV_Reason__c: 'accepted', EV_Disposable__c: 'false', EV_Role_Account__c: NOT_CHECKED });
    expect(stored.EV_Spam_Trap_Risk__c ?? null).toBeNull();
    // Read back, the same verdicts change nothing.
    const again = await pullAll(connector, 'all');
    const second = await connector.write(again.contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'safe') })), {});
    expect(second.written).toBe(1);
    expect(second.unchanged).toHaveLength(449);
    expect(fake.consentChanges).toEqual([]);
  });

  it('a large write is one Bulk API 2.0 ingest job per object: successful, failed and unprocessed records each reported', async () => {
    const { connector } = openConnector(fake, { bulkWriteThreshold: 100 });
    await connector.ensureSchema();
    for (let i = 0; i < 300; i++) fake.add(i < 200 ? 'Contact' : 'Lead', `p${i}@example.com`);
    const { contacts } = await pullAll(connector, 'all');
    fake.failRecordOnce(contacts[3]!.id, 'INVALID_EMAIL_ADDRESS');
    const report = await connector.write(contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'risky') })), {});
    expect(fake.bulk.ingestSizes).toEqual([200, 100]);
    expect(report.written).toBe(299);
    expect(report.failed).toEqual([expect.objectContaining({ contactId: contacts[3]!.id, retryable: false })]);
    expect(fake.records.get(contacts[250]!.id)).toMatchObject({ EV_Risk__c: 'risky', EV_Score__c: 55 });
    fake.bulk.stopAfter = 50;
    const next = (await pullAll(connector, 'all')).contacts;
    const partial = await connector.write(next.map((contact) => ({ contact, verification: verdict(contact.email, 'invalid') })), {});
    expect(partial.written).toBe(100);
    expect(partial.failed.filter((f) => f.reason === 'not processed by the Bulk job')).toHaveLength(200);
  });

  it('the clean action sets HasOptedOutOfEmail for invalid addresses only when chosen; otherwise consent is never touched', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    fake.add('Contact', 'bad@example.com');
    fake.add('Contact', 'good@example.com');
    const { contacts } = await pullAll(connector, 'all');
    const results = contacts.map((contact) => ({ contact, verification: verdict(contact.email, contact.email.startsWith('bad') ? 'invalid' : 'safe') }));
    await connector.write(results, {});
    expect(fake.consentChanges).toEqual([]);
    const again = (await pullAll(connector, 'all')).contacts;
    const report = await connector.write(again.map((contact) => ({ contact, verification: verdict(contact.email, contact.email.startsWith('bad') ? 'invalid' : 'safe') })), { actions: { invalid: 'unsubscribe' } });
    expect(report.actions).toEqual([expect.objectContaining({ email: 'bad@example.com', action: 'unsubscribe', applied: true })]);
    expect(fake.consentChanges).toEqual([{ id: contacts.find((c) => c.email === 'bad@example.com')!.id, field: 'HasOptedOutOfEmail', value: true }]);
  });

  it('an expired session is refreshed once and saved; a revoked refresh token is an AuthError with reconnect words', async () => {
    const { connector, saved } = openConnector(fake);
    await connector.ensureSchema();
    fake.expireSessions();
    await connector.pull(parseScope('all'));
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    fake.revokeAccess();
    const error = await connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as Error).message).toMatch(/reconnect Salesforce/);
  });

  it('REQUEST_LIMIT_EXCEEDED is a quota; a run whose estimate cuts into the head-room pauses before its first page', async () => {
    const { connector } = openConnector(fake, { apiHeadroom: 50 });
    await connector.ensureSchema();
    for (let i = 0; i < 5000; i++) fake.add('Contact', `c${i}@example.com`);
    fake.apiLimit = fake.apiUsed + 60;
    const early = await connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(QuotaError);
    expect((early as Error).message).toMatch(/needs about \d+ Salesforce API calls/);
    expect(fake.callsTo(/\/query$/).filter((c) => c.method === 'GET').length).toBeGreaterThan(0);
    fake.apiLimit = fake.apiUsed;
    const refused = await openConnector(fake, { apiHeadroom: 0 }).connector.pull(parseScope('all')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuotaError);
    expect((refused as Error).message).toMatch(/REQUEST_LIMIT_EXCEEDED/);
  });

  it('Person Accounts: their contacts are read with the Contacts and written through the Account as __pc fields', async () => {
    fake.personAccounts = true;
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    const person = fake.addPersonAccount('person@example.com');
    const plain = fake.add('Contact', 'plain@example.com');
    const { contacts } = await pullAll(connector, 'contacts');
    expect(contacts.map((c) => c.id).sort()).toEqual([person.Id, plain.Id].sort());
    const report = await connector.write(contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'invalid') })), { actions: { invalid: 'unsubscribe' } });
    expect(report).toMatchObject({ written: 2, failed: [] });
    expect(fake.records.get(person.Id)).toMatchObject({ EV_Risk__c: 'invalid', HasOptedOutOfEmail: true });
    // The person account's opt-out went through PersonHasOptedOutOfEmail on its Account, as the user chose.
    expect(fake.consentChanges.map((c) => c.field).sort()).toEqual(['HasOptedOutOfEmail', 'PersonHasOptedOutOfEmail']);
  });

  it('a list view is read by its own condition; an expired query locator resumes after the last Id read', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    for (let i = 0; i < 4100; i++) fake.add('Contact', `c${i}@example.com`, { LeadSource: i % 2 ? 'Web' : 'Phone' });
    fake.listViews.set('00B5g00000VIEW1AAA', { object: 'Contact', query: "SELECT Name, Email FROM Contact WHERE LeadSource = 'Web' ORDER BY Name ASC NULLS FIRST, Id ASC NULLS FIRST" });
    const first = await connector.pull(parseScope('listview:Contact:00B5g00000VIEW1AAA'));
    expect(first.contacts).toHaveLength(2000);
    fake.expireQueryLocators();
    const rest = [];
    let cursor = first.next;
    while (cursor) {
      const page = await connector.pull(parseScope('listview:Contact:00B5g00000VIEW1AAA'), cursor);
      rest.push(...page.contacts);
      cursor = page.next;
    }
    const all = [...first.contacts, ...rest];
    expect(all).toHaveLength(2050);
    expect(new Set(all.map((c) => c.id)).size).toBe(2050);
    expect(all.every((c) => fake.records.get(c.id)!.LeadSource === 'Web')).toBe(true);
  });

  it('`changed` reads what changed since the last `changed` run finished paging (its watermark saved with the connection)', async () => {
    const { connector, saved, record } = openConnector(fake);
    await connector.ensureSchema();
    for (let i = 0; i < 30; i++) fake.add(i % 2 ? 'Lead' : 'Contact', `c${i}@example.com`);
    expect((await pullAll(connector, 'changed')).contacts).toHaveLength(30);
    expect(saved.at(-1)).toMatchObject({ accessToken: expect.any(String), changedWatermark: expect.any(String) });
    // The next run (another worker, another day) starts from the saved watermark.
    const later = openConnector(fake, {}, { ...record, credentials: { ...record.credentials, ...saved.at(-1) } }).connector;
    const edited = [...fake.records.values()][4]!;
    fake.change(edited.Id, { FirstName: 'Edited' });
    expect((await pullAll(later, 'changed')).contacts.map((c) => c.id)).toEqual([edited.Id]);
    expect(() => connector.checkScope(parseScope('changed:2026-01-01'))).toThrow(expect.objectContaining({ field: 'scope' }));
  });

  it('a write the host tries again after a 503 half way sends only what the first attempt did not write', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    for (let i = 0; i < 450; i++) fake.add('Contact', `p${i}@example.com`);
    const { contacts } = await pullAll(connector, 'all');
    const results = contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'risky') }));
    // The second Collections call of the batch is refused: the first 200 records are written already.
    let calls = 0;
    const original = fake.collectionSizes.push.bind(fake.collectionSizes);
    fake.collectionSizes.push = (...sizes: number[]) => {
      calls++;
      if (calls === 1) fake.failNext(/\/composite\/sobjects$/, 503, 'SERVER_UNAVAILABLE');
      return original(...sizes);
    };
    await expect(connector.write(results, {})).rejects.toBeInstanceOf(TransientError);
    const retried = await connector.write(results, {});
    expect(retried).toMatchObject({ written: 450, failed: [] });
    expect([...fake.writesPerRecord.values()].every((n) => n === 1)).toBe(true);
    expect(fake.writesPerRecord.size).toBe(450);
    expect([...fake.collectionSizes]).toEqual([200, 200, 50]);
  });

  it('the head-room: once Sforce-Limit-Info shows the allocation down to it, no further call is made', async () => {
    const { connector } = openConnector(fake, { apiHeadroom: 100 });
    await connector.ensureSchema();
    // After one more call the org has 100 left: the answer's header says so, and the next call is not made.
    fake.apiLimit = fake.apiUsed + 101;
    const calls = fake.apiCalls;
    const error = await connector.ensureSchema().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaError);
    expect((error as Error).message).toMatch(/down to the 100 kept for the org's other integrations/);
    expect(fake.apiCalls).toBe(calls + 1);
  });

  it('the archive clean action sets the status field the user named; without one it is reported not applied', async () => {
    const { connector } = openConnector(fake, { invalidStatusField: 'Email_Status__c', invalidStatusValue: 'Bad address' });
    await connector.ensureSchema();
    fake.customFields.set('Contact.Email_Status__c', { fullName: 'Contact.Email_Status__c', type: 'Text', label: 'Email status' });
    fake.permissionSets.get('Verify_Hub_Fields')!.fieldPermissions.push({ field: 'Contact.Email_Status__c', readable: true, editable: true });
    const bad = fake.add('Contact', 'bad@example.com');
    const { contacts } = await pullAll(connector, 'all');
    const report = await connector.write(contacts.map((contact) => ({ contact, verification: verdict(contact.email, 'invalid') })), { actions: { invalid: 'archive' } });
    expect(report.actions).toEqual([expect.objectContaining({ action: 'archive', applied: true })]);
    expect(fake.records.get(bad.Id)).toMatchObject({ Email_Status__c: 'Bad address', HasOptedOutOfEmail: false });
    const plain = openConnector(fake).connector;
    const other = fake.add('Contact', 'worse@example.com');
    const page = (await pullAll(plain, 'all')).contacts.filter((c) => c.id === other.Id);
    const none = await plain.write(page.map((contact) => ({ contact, verification: verdict(contact.email, 'invalid') })), { actions: { invalid: 'archive' } });
    expect(none.actions).toEqual([expect.objectContaining({ action: 'archive', applied: false })]);
    expect(fake.consentChanges).toEqual([]);
  });

  it('a 503 is transient (jsforce does not retry it: the host does)', async () => {
    const { connector } = openConnector(fake);
    await connector.ensureSchema();
    fake.failNext(/\/limits$/, 503, 'SERVER_UNAVAILABLE');
    const calls = fake.callsTo(/\/limits$/).length;
    await expect(connector.pull(parseScope('all'))).rejects.toBeInstanceOf(TransientError);
    expect(fake.callsTo(/\/limits$/).length - calls).toBe(1);
    expect(FIELD_API_NAMES).toHaveLength(9);
  });
});
