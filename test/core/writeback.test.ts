import {
  changedValues,
  DEFAULT_HUBSPOT_PROPERTY_NAMES,
  hubspotPropertyDefinitions,
  pendingTagChanges,
  sameStoredValue,
  toHubSpotProperties,
  toMailchimpMergeFields,
  toMailchimpTagChanges,
  VerificationSchema,
  type Verification,
} from '@verify-hub/core';

const result = (over: Partial<Verification> = {}): Verification =>
  VerificationSchema.parse({
    email: 'ann@example.com',
    normalized: 'ann@example.com',
    score: 87.4,
    risk: 'risky',
    reason: 'catch_all',
    checks: { syntax: true, mx: true, smtp: true, smtpCheck: 'catch_all', disposable: false, roleAccount: true, catchAll: null, freeProvider: false, spamTrapRisk: 'low' },
    checkedAt: '2026-11-20T08:30:00.000Z',
    billable: true,
    ...over,
  });

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

describe('Mailchimp mapping', () => {
  it('maps merge fields', () => {
    expect(toMailchimpMergeFields(result())).toEqual({ EVRISK: 'risky', EVSCORE: 87, EVDATE: '2026-11-20' });
  });
  it('keeps exactly one risk tag active', () => {
    const tags = toMailchimpTagChanges(result({ risk: 'invalid' }));
    expect(tags).toEqual([
      { name: 'ev-safe', status: 'inactive' },
      { name: 'ev-risky', status: 'inactive' },
      { name: 'ev-invalid', status: 'active' },
      { name: 'ev-unknown', status: 'inactive' },
    ]);
  });
  it('only changes tags that differ from what the member has', () => {
    const desired = toMailchimpTagChanges(result({ risk: 'safe' }));
    expect(pendingTagChanges(['ev-safe', 'vip'], desired)).toEqual([]);
    expect(pendingTagChanges(['ev-invalid'], desired)).toEqual([
      { name: 'ev-safe', status: 'active' },
      { name: 'ev-invalid', status: 'inactive' },
    ]);
  });
});

describe('skipping unchanged writes', () => {
  it('compares values as the platforms store them', () => {
    expect(sameStoredValue('87', 87)).toBe(true);
    expect(sameStoredValue('87.0', '87')).toBe(true);
    expect(sameStoredValue('2026-11-20T08:30:00Z', '2026-11-20T08:30:00.000Z')).toBe(true);
    expect(sameStoredValue(null, '')).toBe(true);
    expect(sameStoredValue(undefined, 'safe')).toBe(false);
    expect(sameStoredValue('safe', 'risky')).toBe(false);
    expect(sameStoredValue('2026-11-20T08:30:00Z', '2026-11-21T08:30:00Z')).toBe(false);
  });
  it('returns nothing to write when the stored values match', () => {
    const desired = toHubSpotProperties(result());
    const stored = { ...desired, ev_score: '87.0', ev_checked_at: '2026-11-20T08:30:00Z', ev_catch_all: null, firstname: 'Ann' };
    expect(changedValues(stored, desired)).toEqual({});
  });
  it('returns only what changed', () => {
    const desired = toHubSpotProperties(result());
    expect(changedValues({ ...desired, ev_risk: 'safe' }, desired)).toEqual({ ev_risk: 'risky' });
    // everything but the undetermined catch-all flag, which is '' and so already "not set"
    expect(Object.keys(changedValues(undefined, desired)).sort()).toEqual(Object.keys(desired).filter((k) => k !== 'ev_catch_all').sort());
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
