import { DEFAULT_MAILCHIMP_NAMES, planWrites } from '@verify-hub/connector-mailchimp';
import type { Contact, Risk } from '@verify-hub/core';
import { verification } from './helpers';

const current = (risk: Risk, score: number) => ({ EVRISK: risk, EVSCORE: score, EVDATE: '2026-11-20' });
const result = (contact: Partial<Contact>, risk: Risk) => ({ contact: { id: 'h', email: 'a@example.com', status: 'subscribed', ...contact }, verification: verification('a@example.com', risk) });

test('only changed merge fields and missing tag changes are planned', () => {
  const plan = planWrites([result({ current: current('risky', 55), tags: ['ev-safe', 'vip'] }, 'risky')], {}, DEFAULT_MAILCHIMP_NAMES);
  expect(plan.changes).toEqual([{ contactId: 'h', email: 'a@example.com', mergeFields: {}, tags: [{ name: 'ev-safe', status: 'inactive' }, { name: 'ev-risky', status: 'active' }], action: 'none' }]);
  const same = planWrites([result({ current: current('risky', 55), tags: ['ev-risky'] }, 'risky')], {}, DEFAULT_MAILCHIMP_NAMES);
  expect(same).toEqual({ changes: [], unchanged: ['h'], refused: [] });
});

test('without tag data, the stored risk stands for the tags; otherwise all four risk tags and the flag tag are set', () => {
  expect(planWrites([result({ current: current('safe', 95), tags: undefined }, 'safe')], {}, DEFAULT_MAILCHIMP_NAMES).unchanged).toEqual(['h']);
  const changed = planWrites([result({ current: current('safe', 95), tags: undefined }, 'invalid')], {}, DEFAULT_MAILCHIMP_NAMES);
  expect(changed.changes[0]!.tags.map((t) => `${t.name}:${t.status}`)).toEqual(['ev-safe:inactive', 'ev-risky:inactive', 'ev-invalid:active', 'ev-unknown:inactive', 'ev-disposable:inactive']);
});

test('the disposable flag is the ev-disposable tag: active when true; removed when false or not determined (null)', () => {
  const flagged = (disposable: boolean | null, tags: string[]) => ({
    contact: { id: 'h', email: 'a@example.com', status: 'subscribed', current: current('risky', 55), tags },
    verification: { ...verification('a@example.com', 'risky'), checks: { ...verification('a@example.com', 'risky').checks, disposable } },
  });
  expect(planWrites([flagged(true, ['ev-risky'])], {}, DEFAULT_MAILCHIMP_NAMES).changes[0]!.tags).toEqual([{ name: 'ev-disposable', status: 'active' }]);
  expect(planWrites([flagged(true, ['ev-risky', 'ev-disposable'])], {}, DEFAULT_MAILCHIMP_NAMES).unchanged).toEqual(['h']);
  expect(planWrites([flagged(false, ['ev-risky', 'ev-disposable'])], {}, DEFAULT_MAILCHIMP_NAMES).changes[0]!.tags).toEqual([{ name: 'ev-disposable', status: 'inactive' }]);
  expect(planWrites([flagged(null, ['ev-risky', 'ev-disposable'])], {}, DEFAULT_MAILCHIMP_NAMES).changes[0]!.tags).toEqual([{ name: 'ev-disposable', status: 'inactive' }]);
  expect(planWrites([flagged(null, ['ev-risky'])], {}, DEFAULT_MAILCHIMP_NAMES).unchanged).toEqual(['h']);
});

test('actions only for invalid results, never unknown; untouchable members are refused', () => {
  const opts = { actions: { invalid: 'archive' as const } };
  expect(planWrites([result({ current: current('invalid', 2), tags: ['ev-invalid'] }, 'invalid')], opts, DEFAULT_MAILCHIMP_NAMES).changes[0]!.action).toBe('archive');
  expect(planWrites([result({ current: current('unknown', 0), tags: ['ev-unknown'] }, 'unknown')], opts, DEFAULT_MAILCHIMP_NAMES)).toMatchObject({ changes: [], unchanged: ['h'] });
  for (const status of ['cleaned', 'unsubscribed', 'archived']) {
    expect(planWrites([result({ status }, 'invalid')], opts, DEFAULT_MAILCHIMP_NAMES).refused).toEqual([{ contactId: 'h', email: 'a@example.com', reason: `member is ${status}: never touched`, retryable: false }]);
  }
});
