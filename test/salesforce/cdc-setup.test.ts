import { realTimeLines } from '@verify-hub/connector-salesforce';
import { FakeSalesforce } from '../fakes/salesforce/fake-salesforce';
import { withStreaming } from '../fakes/salesforce/fake-streaming-org';
import { openConnector } from './helpers';

/**
 * Real time as `verify-hub salesforce setup` sets it up against the fake org: the edition read from
 * Organization, and Contact and Lead selected for Change Data Capture through the Tooling API's
 * PlatformEventChannelMember on the standard ChangeEvents channel, once; Salesforce's refusals (the
 * entity allocation, a missing permission) reported with what to do.
 */
describe('Salesforce setup: edition and Change Data Capture selection', () => {
  let fake: FakeSalesforce;
  beforeEach(async () => {
    fake = await new FakeSalesforce().start();
  });
  afterEach(() => fake.stop());

  const toolingCalls = () => fake.callsTo(/\/tooling\//).length;

  it('an Enterprise org gets Contact and Lead selected once; a second setup creates nothing; change events flow only once selected', async () => {
    const streaming = withStreaming(fake);
    fake.add('Contact', 'before@example.com');
    expect(streaming.published('Contact')).toBe(0);

    const { connector } = openConnector(fake);
    const first = await connector.ensureRealTime();
    expect(first).toEqual({ edition: 'Enterprise Edition', sandbox: false, changeDataCapture: true, created: ['ContactChangeEvent', 'LeadChangeEvent'], existing: [], problems: [] });
    expect([...fake.changeEvents.members.values()].map((m) => [m.DeveloperName, m.EventChannel, m.SelectedEntity])).toEqual([
      ['ChangeEvents_ContactChangeEvent', 'ChangeEvents', 'ContactChangeEvent'],
      ['ChangeEvents_LeadChangeEvent', 'ChangeEvents', 'LeadChangeEvent'],
    ]);
    expect(realTimeLines(first)).toEqual([
      'real time: this org is Enterprise Edition: verify-hub follows Change Data Capture on the standard ChangeEvents channel',
      'selected for Change Data Capture: ContactChangeEvent, LeadChangeEvent',
    ]);
    fake.add('Contact', 'after@example.com');
    fake.add('Lead', 'lead@example.com');
    expect([streaming.published('Contact'), streaming.published('Lead')]).toEqual([1, 1]);

    const again = await connector.ensureRealTime();
    expect(again).toMatchObject({ created: [], existing: ['ContactChangeEvent', 'LeadChangeEvent'], problems: [] });
    expect(fake.changeEvents.createCalls).toEqual(['ContactChangeEvent', 'LeadChangeEvent']);
    expect(realTimeLines(again)[1]).toBe('already selected for Change Data Capture: ContactChangeEvent, LeadChangeEvent');
  });

  it('selects only what is missing, and only the connection\'s objects', async () => {
    fake.changeEvents.select('Account', 'Contact');
    const { connector } = openConnector(fake, { objects: ['Lead'] });
    expect(await connector.ensureRealTime()).toMatchObject({ created: ['LeadChangeEvent'], existing: [], problems: [] });
    expect(await openConnector(fake).connector.ensureRealTime()).toMatchObject({ created: [], existing: ['ContactChangeEvent', 'LeadChangeEvent'] });
    expect(fake.changeEvents.createCalls).toEqual(['LeadChangeEvent']);
  });

  it('Professional Edition has no Change Data Capture: setup says the 15-minute changed-since pull is used, and asks the Tooling API nothing', async () => {
    fake.organizationType = 'Professional Edition';
    const report = await openConnector(fake).connector.ensureRealTime();
    expect(report).toEqual({ edition: 'Professional Edition', sandbox: false, changeDataCapture: false, created: [], existing: [], problems: [] });
    expect(toolingCalls()).toBe(0);
    expect(realTimeLines(report)).toEqual([
      'real time: this org is Professional Edition, which has no Change Data Capture (only Enterprise, Unlimited, Performance and Developer editions have it): Contacts and Leads changed since the last look are pulled every 15 minutes instead, by verify-hub serve or worker',
    ]);
  });

  it('a Developer Edition sandbox has it, and says it is a sandbox', async () => {
    fake.organizationType = 'Developer Edition';
    fake.isSandbox = true;
    const report = await openConnector(fake).connector.ensureRealTime();
    expect(report).toMatchObject({ changeDataCapture: true, sandbox: true, created: ['ContactChangeEvent', 'LeadChangeEvent'] });
    expect(realTimeLines(report)[0]).toMatch(/^real time: this org is Developer Edition \(sandbox\): verify-hub follows Change Data Capture/);
  });

  it('the entity allocation used up: Salesforce refuses the sixth entity, and setup says what to do without failing', async () => {
    fake.changeEvents.select('Account', 'Opportunity', 'Case', 'Campaign');
    const report = await openConnector(fake).connector.ensureRealTime();
    expect(report.created).toEqual(['ContactChangeEvent']);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/^Salesforce refused to select LeadChangeEvent: the org's Change Data Capture entities are used up \(5 without the Change Data Capture add-on; selected now: AccountChangeEvent, OpportunityChangeEvent, CaseChangeEvent, CampaignChangeEvent\)\. Deselect one no longer needed in Setup > Integrations > Change Data Capture \(or buy the add-on\) and run setup again; until it is selected, verify-hub gets no change events for Leads/);
    expect(report.problems[0]).toMatch(/ \(Salesforce answered LIMIT_EXCEEDED: .*maximum number of entities \(5\).*\)$/);
    expect(fake.changeEvents.publishes('Lead')).toBe(false);
  });

  it('without "Customize Application" nothing is selected and the permission is named; without "View Setup and Configuration" nothing is asked to be created', async () => {
    fake.changeEvents.permissions.customizeApplication = false;
    const refused = await openConnector(fake).connector.ensureRealTime();
    expect(refused.created).toEqual([]);
    expect(refused.problems).toHaveLength(2);
    for (const problem of refused.problems) expect(problem).toMatch(/\(INSUFFICIENT_ACCESS\): the API user needs the "Customize Application" permission to select Change Data Capture entities; grant it \(a permission set\) and run setup again, or select it by hand in Setup > Integrations > Change Data Capture/);
    expect(fake.changeEvents.members.size).toBe(0);

    fake.changeEvents.permissions.viewSetupAndConfiguration = false;
    const calls = fake.changeEvents.createCalls.length;
    const unseen = await openConnector(fake).connector.ensureRealTime();
    expect(unseen.problems).toEqual([expect.stringMatching(/did not let the API user read the Change Data Capture selection \(INSUFFICIENT_ACCESS\): give it the "View Setup and Configuration" and "Customize Application" permissions .* or select ContactChangeEvent and LeadChangeEvent by hand/)]);
    expect(fake.changeEvents.createCalls.length).toBe(calls);
  });
});
