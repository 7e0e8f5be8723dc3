import type { DnsClient } from '../dns-client';

/** Strings in verify-hub's vocabularies (core's SPF_VALUES, DKIM_VALUES, DMARC_VALUES); null: no usable DNS answer. */
export interface AuthenticationResult {
  spf: 'strict' | 'soft' | 'neutral' | 'open' | 'missing' | null;
  dkim: 'found' | 'missing' | null;
  dmarc: 'reject' | 'quarantine' | 'none' | 'missing' | null;
}

type TxtAnswer = Awaited<ReturnType<DnsClient['txt']>>;

/** The matching record's text; 'missing' when the resolver answered without one; null: no usable answer. */
function record(answer: TxtAnswer, test: (txt: string) => boolean): string | 'missing' | null {
  if (answer.kind === 'error') return null;
  if (answer.kind !== 'ok') return 'missing';
  return answer.records.map((t) => t.trim()).find(test) ?? 'missing';
}

/** The qualifier of SPF's `all` mechanism: `-all` strict, `~all` soft, `+all` open, `?all` or none neutral. */
function spfPolicy(txt: string): AuthenticationResult['spf'] {
  const all = /(?:^|\s)([-~+?]?)all(?:\s|$)/i.exec(txt);
  if (!all) return 'neutral';
  return ({ '-': 'strict', '~': 'soft', '+': 'open', '': 'open', '?': 'neutral' } as const)[all[1] as '-' | '~' | '+' | '' | '?'];
}

/** DMARC's `p=` policy; a record without a valid one counts as `none` (RFC 7489 §6.6.3 treats it as monitoring). */
function dmarcPolicy(txt: string): AuthenticationResult['dmarc'] {
  const p = /(?:^|;)\s*p\s*=\s*(reject|quarantine|none)\s*(?:;|$)/i.exec(txt);
  return p ? (p[1]!.toLowerCase() as 'reject' | 'quarantine' | 'none') : 'none';
}

/**
 * SPF (a `v=spf1` TXT at the domain), DMARC (a `v=DMARC1` TXT at `_dmarc.<domain>`) and DKIM (a public key
 * at `<selector>._domainkey.<domain>` for any of the common selectors: DKIM selectors cannot be listed, so
 * 'missing' only means "none of the usual ones").
 */
export async function checkAuthentication(dns: DnsClient, domain: string, selectors: string[]): Promise<AuthenticationResult> {
  const [spfAnswer, dmarcAnswer, ...dkimAnswers] = await Promise.all([
    dns.txt(domain),
    dns.txt(`_dmarc.${domain}`),
    ...selectors.map((s) => dns.txt(`${s}._domainkey.${domain}`)),
  ]);
  const spf = record(spfAnswer!, (t) => /^v=spf1(\s|$)/i.test(t));
  const dmarc = record(dmarcAnswer!, (t) => /^v=DMARC1\s*(;|$)/i.test(t));
  const dkim = dkimAnswers.map((a) => record(a, (t) => /(^|;)\s*(v=DKIM1|p=[A-Za-z0-9+/])/i.test(t)));
  return {
    spf: spf === null || spf === 'missing' ? spf : spfPolicy(spf),
    dmarc: dmarc === null || dmarc === 'missing' ? dmarc : dmarcPolicy(dmarc),
    dkim: dkim.some((d) => d !== null && d !== 'missing') ? 'found' : dkim.every((d) => d === null) ? null : 'missing',
  };
}
