import { DKIM_VALUES, DMARC_VALUES, SPF_VALUES } from '@verify-hub/core';
import { checkAuthentication } from '../../engine/src/checks/authentication';
import type { DnsClient } from '../../engine/src/dns-client';

/** A resolver that answers TXT from a table: a name not in it has no record; `error` is a failed query. */
function txtResolver(zone: Record<string, string[] | 'error'>): DnsClient {
  return {
    txt: async (name: string) => {
      const records = zone[name];
      if (records === 'error') return { kind: 'error', code: 'ETIMEOUT' };
      return records ? { kind: 'ok', records } : { kind: 'nxdomain' };
    },
  } as unknown as DnsClient;
}

describe('SPF, DKIM and DMARC as strings in verify-hub\'s vocabularies', () => {
  it.each([
    ['v=spf1 ip4:192.0.2.1 -all', 'strict'],
    ['v=spf1 include:_spf.google.com ~all', 'soft'],
    ['v=spf1 a mx ?all', 'neutral'],
    ['v=spf1 a mx', 'neutral'],
    ['v=spf1 +all', 'open'],
  ])('SPF %j is %s', async (record, spf) => {
    const auth = await checkAuthentication(txtResolver({ 'acme.com': ['google-site-verification=x', record] }), 'acme.com', ['default']);
    expect(auth.spf).toBe(spf);
    expect(SPF_VALUES).toContain(spf);
  });

  it.each([
    ['v=DMARC1; p=reject; rua=mailto:d@acme.com', 'reject'],
    ['v=DMARC1; p=quarantine', 'quarantine'],
    ['v=DMARC1; p=none', 'none'],
    ['v=DMARC1; rua=mailto:d@acme.com', 'none'],
  ])('DMARC %j is %s', async (record, dmarc) => {
    const auth = await checkAuthentication(txtResolver({ '_dmarc.acme.com': [record] }), 'acme.com', ['default']);
    expect(auth.dmarc).toBe(dmarc);
    expect(DMARC_VALUES).toContain(dmarc);
  });

  it('DKIM is found under any common selector, missing when none has a key', async () => {
    const withKey = txtResolver({ 'google._domainkey.acme.com': ['v=DKIM1; k=rsa; p=MIGfMA0'] });
    expect((await checkAuthentication(withKey, 'acme.com', ['default', 'google'])).dkim).toBe('found');
    expect((await checkAuthentication(txtResolver({}), 'acme.com', ['default', 'google'])).dkim).toBe('missing');
    expect(DKIM_VALUES).toEqual(['found', 'missing']);
  });

  it('no record is missing; no usable DNS answer is null (not determined), never missing', async () => {
    expect(await checkAuthentication(txtResolver({}), 'acme.com', ['default'])).toEqual({ spf: 'missing', dkim: 'missing', dmarc: 'missing' });
    const failing = txtResolver({ 'acme.com': 'error', '_dmarc.acme.com': 'error', 'default._domainkey.acme.com': 'error' });
    expect(await checkAuthentication(failing, 'acme.com', ['default'])).toEqual({ spf: null, dkim: null, dmarc: null });
  });
});
