import { DEFAULT_HUBSPOT_PROPERTY_NAMES, hubspotPropertyDefinitions, toHubSpotProperties } from '@verify-hub/connector-hubspot';
import { riskyCatchAll as result } from '../fakes/verification/risky-catch-all';

describe('HubSpot mapping', () => {
  it('formats every property as HubSpot stores it', () => {
    expect(toHubSpotProperties(result())).toEqual({
      ev_risk: 'risky',
      ev_score: '87',
      ev_reason: 'catch_all',
      ev_checked_at: '2026-11-20T08:30:00.000Z',
      ev_disposable: 'false',
      ev_role_account: 'true',
      ev_catch_all: '',
      ev_free_provider: 'false',
      ev_spam_trap_risk: 'low',
    });
  });
  it('uses configured names', () => {
    const props = toHubSpotProperties(result(), { ...DEFAULT_HUBSPOT_PROPERTY_NAMES, risk: 'email_quality' });
    expect(props.email_quality).toBe('risky');
    expect(props.ev_risk).toBeUndefined();
  });
  it('defines one property per written value, in the group, with enumeration options', () => {
    const defs = hubspotPropertyDefinitions();
    expect(defs.map((d) => d.name).sort()).toEqual(Object.keys(toHubSpotProperties(result())).sort());
    expect(new Set(defs.map((d) => d.groupName))).toEqual(new Set(['email_verification']));
    const risk = defs.find((d) => d.name === 'ev_risk')!;
    expect(risk).toMatchObject({ type: 'enumeration', fieldType: 'select' });
    expect(risk.options!.map((o) => o.value)).toEqual(['safe', 'risky', 'invalid', 'unknown']);
    expect(defs.find((d) => d.name === 'ev_score')).toMatchObject({ type: 'number', fieldType: 'number' });
    expect(defs.find((d) => d.name === 'ev_checked_at')).toMatchObject({ type: 'datetime', fieldType: 'date' });
    expect(defs.find((d) => d.name === 'ev_catch_all')).toMatchObject({ type: 'bool', fieldType: 'booleancheckbox' });
  });
});

describe('values outside the HubSpot enumeration', () => {
  it('a spam-trap level another engine invented, or none reported, clears the property instead of failing the write', () => {
    expect(toHubSpotProperties(result({ checks: { ...result().checks, spamTrapRisk: 'elevated' } })).ev_spam_trap_risk).toBe('');
    expect(toHubSpotProperties(result({ checks: { ...result().checks, spamTrapRisk: null } })).ev_spam_trap_risk).toBe('');
  });
  it('a flag not reported is cleared, never written as false', () => {
    const props = toHubSpotProperties(result({ checks: { ...result().checks, disposable: null, freeProvider: null } }));
    expect(props).toMatchObject({ ev_disposable: '', ev_free_provider: '' });
  });
});
