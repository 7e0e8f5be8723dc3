import { DnsPeer } from './dns-peer';
import { SmtpPeer, type SmtpPeerOptions } from './smtp-peer';

/**
 * A small internet on loopback for engine tests and benches: a DNS peer with a zone of test domains whose
 * mail hosts all resolve to 127.0.0.1, where one SMTP peer answers for every domain.
 *
 * | domain | what it is |
 * |---|---|
 * | acme-mail.com | MX, SPF, DMARC, DKIM (selector1); mailboxes scripted per test (unscripted: 550 5.1.1) |
 * | catchall-corp.com | MX; accepts every mailbox |
 * | implicit-mx.com | no MX, an A record (RFC 5321 implicit MX) |
 * | null-mx.com | RFC 7505 null MX |
 * | no-mail.com | exists (TXT only), no MX, no A |
 * | private-mx.com | MX at 10.0.0.25 |
 * | yahoo-hosted.com | MX at Yahoo's host names (answers 250 to every RCPT) |
 * | google-hosted.com | MX at aspmx.l.google.com |
 * | com, net | SOA: the resolver "sees" these TLDs |
 */
export const MX_IP = '127.0.0.1';

export function standardZone(dns: DnsPeer): DnsPeer {
  return dns
    .set('com', { SOA: true, NS: ['a.gtld-servers.net'] })
    .set('net', { SOA: true })
    .set('acme-mail.com', { MX: [{ exchange: 'mx1.acme-mail.com', priority: 10 }, { exchange: 'mx2.acme-mail.com', priority: 20 }], TXT: ['v=spf1 ip4:127.0.0.1 -all'] })
    .set('mx1.acme-mail.com', { A: [MX_IP] })
    .set('mx2.acme-mail.com', { A: [MX_IP] })
    .set('_dmarc.acme-mail.com', { TXT: ['v=DMARC1; p=reject'] })
    .set('selector1._domainkey.acme-mail.com', { TXT: ['v=DKIM1; k=rsa; p=MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC'] })
    .set('catchall-corp.com', { MX: [{ exchange: 'mail.catchall-corp.com', priority: 5 }] })
    .set('mail.catchall-corp.com', { A: [MX_IP] })
    .set('implicit-mx.com', { A: [MX_IP] })
    .set('null-mx.com', { MX: [{ exchange: '', priority: 0 }], A: ['203.0.113.10'] })
    .set('no-mail.com', { TXT: ['hello'] })
    .set('private-mx.com', { MX: [{ exchange: 'mx.private-mx.com', priority: 10 }] })
    .set('mx.private-mx.com', { A: ['10.0.0.25'] })
    .set('yahoo-hosted.com', { MX: [{ exchange: 'mta5.am0.yahoodns.net', priority: 1 }] })
    .set('mta5.am0.yahoodns.net', { A: [MX_IP] })
    .set('google-hosted.com', { MX: [{ exchange: 'aspmx.l.google.com', priority: 1 }] })
    .set('aspmx.l.google.com', { A: [MX_IP] });
}

export interface MailWorld {
  dns: DnsPeer;
  smtp: SmtpPeer;
  dnsServer: string;
  smtpPort: number;
  stop(): Promise<void>;
}

export async function startMailWorld(smtpOptions: SmtpPeerOptions = {}): Promise<MailWorld> {
  const dns = standardZone(new DnsPeer());
  const smtp = new SmtpPeer(smtpOptions);
  smtp.domainDefault('catchall-corp.com', 'accept').domainDefault('yahoo-hosted.com', 'accept');
  const [dnsServer, smtpPort] = await Promise.all([dns.start(), smtp.start()]);
  return {
    dns,
    smtp,
    dnsServer,
    smtpPort,
    stop: async () => {
      await Promise.all([dns.stop(), smtp.stop()]);
    },
  };
}
