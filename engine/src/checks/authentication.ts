import type { DnsClient } from '../dns-client';

export interface AuthenticationResult {
  spf: boolean | null;
  dkim: boolean | null;
  dmarc: boolean | null;
}

/** true: the record is there; false: the resolver answered and it is not; null: no usable answer. */
function verdict(answer: Awaited<ReturnType<DnsClient['txt']>>, test: (txt: string) => boolean): boolean | null {
  if (answer.kind === 'ok') return answer.records.some(test);
  if (answer.kind === 'error') return null;
  return false;
}

/**
 * SPF (a `v=spf1` TXT at the domain), DMARC (a `v=DMARC1` TXT at `_dmarc.<domain>`) and DKIM (a public key
 * at `<selector>._domainkey.<domain>` for any of the common selectors: DKIM selectors cannot be listed, so
 * false only means "none of the usual ones").
 */
export async function checkAuthentication(dns: DnsClient, domain: string, selectors: string[]): Promise<AuthenticationResult> {
  const [spf, dmarc, ...dkim] = await Promise.all([
    dns.txt(domain),
    dns.txt(`_dmarc.${domain}`),
    ...selectors.map((s) => dns.txt(`${s}._domainkey.${domain}`)),
  ]);
  const dkimVerdicts = dkim.map((a) => verdict(a, (t) => /(^|;)\s*(v=DKIM1|p=[A-Za-z0-9+/])/i.test(t)));
  return {
    spf: verdict(spf!, (t) => /^v=spf1(\s|$)/i.test(t.trim())),
    dmarc: verdict(dmarc!, (t) => /^v=DMARC1\s*(;|$)/i.test(t.trim())),
    dkim: dkimVerdicts.includes(true) ? true : dkimVerdicts.every((v) => v === null) ? null : false,
  };
}
