import { changedValues, sameStoredValue, verificationFieldValues } from '@verify-hub/core';
import { riskyCatchAll as result } from '../fakes/verification/risky-catch-all';

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
    const desired = verificationFieldValues(result());
    const stored = { ...desired, ev_score: '87.0', ev_checked_at: '2026-11-20T08:30:00Z', ev_catch_all: null, firstname: 'Ann' };
    expect(changedValues(stored, desired)).toEqual({});
  });
  it('returns only what changed', () => {
    const desired = verificationFieldValues(result());
    expect(changedValues({ ...desired, ev_risk: 'safe' }, desired)).toEqual({ ev_risk: 'risky' });
    // everything but the undetermined catch-all flag, which is '' and so already "not set"
    expect(Object.keys(changedValues(undefined, desired)).sort()).toEqual(Object.keys(desired).filter((k) => k !== 'ev_catch_all').sort());
  });
});

describe('the neutral field values (HubSpot properties, file columns)', () => {
  it('a spam-trap level another engine invented, or none reported, clears the value instead of failing an enumeration', () => {
    expect(verificationFieldValues(result({ checks: { ...result().checks, spamTrapRisk: 'elevated' } })).ev_spam_trap_risk).toBe('');
    expect(verificationFieldValues(result({ checks: { ...result().checks, spamTrapRisk: null } })).ev_spam_trap_risk).toBe('');
  });
  it('a flag not reported is cleared, never written as false', () => {
    const values = verificationFieldValues(result({ checks: { ...result().checks, disposable: null, freeProvider: null } }));
    expect(values).toMatchObject({ ev_disposable: '', ev_free_provider: '' });
  });
});
