import { hubspotPropertyDefinitions } from '@verify-hub/connector-hubspot';
import { FakeHubSpot } from '../fakes/hubspot/fake-hubspot';
import { connector } from './helpers';

const fake = new FakeHubSpot();
const OURS = hubspotPropertyDefinitions().map((d) => d.name);

beforeAll(async () => {
  await fake.start();
  fake.addPortal({ portalId: '201', token: 'schema-1' });
  fake.addPortal({ portalId: '202', token: 'schema-2' });
  fake.addPortal({ portalId: '203', token: 'schema-3', customPropertyLimit: 5 });
});
afterAll(() => fake.stop());

describe('ensureSchema', () => {
  it('creates the group and every property with the types of DESIGN.md §6, then creates nothing the second time', async () => {
    const hub = connector(fake, '201', 'schema-1');
    const first = await hub.ensureSchema();
    expect(first.problems).toEqual([]);
    expect(first.created).toEqual(['group:email_verification', ...OURS]);
    const portal = fake.portal('201');
    expect(portal.groups.has('email_verification')).toBe(true);
    expect(portal.properties.get('ev_risk')).toMatchObject({ type: 'enumeration', fieldType: 'select', groupName: 'email_verification' });
    expect(portal.properties.get('ev_risk')!.options!.map((o) => o.value)).toEqual(['safe', 'risky', 'invalid', 'unknown']);
    expect(portal.properties.get('ev_score')).toMatchObject({ type: 'number', fieldType: 'number' });
    expect(portal.properties.get('ev_checked_at')).toMatchObject({ type: 'datetime', fieldType: 'date' });
    expect(portal.properties.get('ev_catch_all')).toMatchObject({ type: 'bool', fieldType: 'booleancheckbox' });

    fake.resetCalls();
    const second = await hub.ensureSchema();
    expect(second).toEqual({ created: [], existing: ['group:email_verification', ...OURS], problems: [] });
    expect(fake.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('reports a property of another type under our name as a problem, leaves it alone, and creates the rest', async () => {
    fake.addProperty('202', { name: 'ev_score', label: 'Score (someone else)', type: 'string', fieldType: 'text', groupName: 'contactinformation' });
    const report = await connector(fake, '202', 'schema-2').ensureSchema();
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/ev_score already exists with type string\/text, but verify-hub writes number\/number/);
    expect(report.created).not.toContain('ev_score');
    expect(report.created).toEqual(expect.arrayContaining(OURS.filter((n) => n !== 'ev_score')));
    expect(fake.portal('202').properties.get('ev_score')!.type).toBe('string');
  });

  it('reports an existing enumeration that lacks one of our options', async () => {
    fake.addPortal({ portalId: '205', token: 'schema-5' });
    fake.addProperty('205', { name: 'ev_risk', label: 'Risk', type: 'enumeration', fieldType: 'select', groupName: 'contactinformation', options: [{ label: 'Safe', value: 'safe' }, { label: 'Invalid', value: 'invalid' }] });
    const report = await connector(fake, '205', 'schema-5').ensureSchema();
    expect(report.problems).toEqual([expect.stringMatching(/ev_risk exists but lacks the option\(s\) risky, unknown/)]);
  });

  it('uses the property names of the connection settings', async () => {
    fake.addPortal({ portalId: '204', token: 'schema-4' });
    const report = await connector(fake, '204', 'schema-4', { settings: { groupName: 'quality', propertyNames: { risk: 'email_quality' } } }).ensureSchema();
    expect(report.created).toContain('email_quality');
    expect(report.created).toContain('group:quality');
    expect(fake.portal('204').properties.get('email_quality')!.groupName).toBe('quality');
  });

  it('preflights the custom-property limit and creates nothing when there is no room for all', async () => {
    const report = await connector(fake, '203', 'schema-3').ensureSchema();
    expect(report.created).toEqual([]);
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]).toMatch(/custom property limit: 0 of 5 contact properties used, 9 more needed/);
    expect([...fake.portal('203').properties.keys()].filter((n) => n.startsWith('ev_'))).toEqual([]);
  });

  it('rejects bad connection settings with the field named', () => {
    expect(() => connector(fake, '201', 'schema-1', { settings: { propertyNames: { risk: 'Bad Name' } } })).toThrow(/settings\.propertyNames\.risk/);
    expect(() => connector(fake, '201', '', {})).toThrow(/credentials\.accessToken/);
  });
});
