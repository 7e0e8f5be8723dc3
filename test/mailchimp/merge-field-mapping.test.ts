import { pendingTagChanges, toMailchimpMergeFields, toMailchimpTagChanges } from '@verify-hub/connector-mailchimp';
import { riskyCatchAll as result } from '../fakes/verification/risky-catch-all';

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
