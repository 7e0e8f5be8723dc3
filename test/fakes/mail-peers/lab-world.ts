import type { Risk } from '@verify-hub/core';
import { REPLY_RULES, type ProviderId } from '@verify-hub/engine';
import { DnsPeer } from './dns-peer';
import { standardZone } from './mail-world';
import { replyLine, SmtpPeer, type MailboxBehaviour, type SmtpPeerOptions } from './smtp-peer';

/**
 * A labelled scripted mail world (engine accuracy, issue 17): loopback DNS plus one SMTP peer per
 * behaviour family, each on its own 127.0.0.x address and all on one port, so the engine's single
 * `smtpPort` reaches every one. Provider peers answer with the documented replies of REPLY_RULES.
 * Every case says what is true of the mailbox and which risk an honest engine gives.
 */
export interface LabCase {
  address: string;
  behaviour: string;
  /** What is true: the mailbox exists, does not exist, or (policy block, tarpit...) nobody outside can tell. */
  truth: 'exists' | 'missing' | 'unknowable';
  expected: Risk;
  /** A documented answer of a provider whose "user unknown" must end invalid. */
  userUnknownOf?: ProviderId | 'any';
  policyBlock?: boolean;
}

export interface LabWorld {
  dns: DnsPeer;
  peers: SmtpPeer[];
  dnsServer: string;
  smtpPort: number;
  cases: LabCase[];
  /** SMTP sessions opened so far on every peer. */
  sessions(): number;
  /** RCPTs of random catch-all probe addresses so far, per domain. */
  catchAllProbes(): Map<string, number>;
  stop(): Promise<void>;
}

const example = (provider: ProviderId | 'any', meaningStart: string): { code: number; message: string } => {
  const rule = REPLY_RULES.find((r) => r.provider === provider && r.meaning.startsWith(meaningStart));
  if (!rule) throw new Error(`no REPLY_RULES row ${provider}: ${meaningStart}`);
  return replyLine(rule.example);
};

interface PeerPlan {
  ip: string;
  options?: SmtpPeerOptions;
  defaults?: Record<string, MailboxBehaviour>;
  mailboxes: [string, MailboxBehaviour, Omit<LabCase, 'address'>][];
}

/** Each domain's MX host name -> the peer's loopback address. */
const DOMAINS: Record<string, { mx: string[]; ip?: string[] }> = {
  'gmail.com': { mx: ['gmail-smtp-in.l.google.com'], ip: ['127.0.0.11'] },
  'ws-acme.com': { mx: ['aspmx.l.google.com'], ip: ['127.0.0.11'] },
  'ws-catchall.com': { mx: ['smtp.google.com'], ip: ['127.0.0.11'] },
  'contoso-lab.com': { mx: ['contoso-lab-com.mail.protection.outlook.com'], ip: ['127.0.0.12'] },
  'outlook.com': { mx: ['outlook-com.olc.protection.outlook.com'], ip: ['127.0.0.12'] },
  'yahoo.com': { mx: ['mta5.am0.yahoodns.net'], ip: ['127.0.0.13'] },
  'aol.com': { mx: ['mx-aol.mail.gm0.yahoodns.net'], ip: ['127.0.0.13'] },
  'icloud.com': { mx: ['mx01.mail.icloud.com'], ip: ['127.0.0.14'] },
  'proton.me': { mx: ['mail.protonmail.ch'], ip: ['127.0.0.15'] },
  'zohomail.com': { mx: ['mx.zoho.com'], ip: ['127.0.0.16'] },
  'busy-mx.com': { mx: ['mx.busy-mx.com'], ip: ['127.0.0.21'] },
  'fallback-mx.com': { mx: ['mx1.fallback-mx.com', 'mx2.fallback-mx.com'], ip: ['127.0.0.21', '127.0.0.1'] },
  'tls-only.com': { mx: ['mx.tls-only.com'], ip: ['127.0.0.22'] },
  'policy-greeting.com': { mx: ['mx.policy-greeting.com'], ip: ['127.0.0.23'] },
  'sender-block.com': { mx: ['mx.sender-block.com'], ip: ['127.0.0.24'] },
  'gone-mx.com': { mx: ['mx.gone-mx.com'], ip: ['127.0.0.99'] },
  'gmaill.com': { mx: ['mx.gmaill.com'] },
  'postfix-lab.com': { mx: ['mx.postfix-lab.com'] },
};

function plans(): PeerPlan[] {
  const exists = { truth: 'exists', expected: 'safe' } as const;
  const missing = (of: ProviderId | 'any') => ({ truth: 'missing', expected: 'invalid', userUnknownOf: of }) as const;
  const policy = { truth: 'unknowable', expected: 'unknown', policyBlock: true } as const;
  const later = { truth: 'unknowable', expected: 'unknown' } as const;
  return [
    {
      ip: '127.0.0.11',
      defaults: { 'ws-catchall.com': 'accept' },
      mailboxes: [
        ['ada@gmail.com', 'accept', { ...exists, behaviour: 'Google: existing mailbox' }],
        ['ghost@gmail.com', example('google', 'account does not exist'), { ...missing('google'), behaviour: 'Google: 5.1.1 does not exist' }],
        ['closed@gmail.com', example('google', 'account disabled'), { ...missing('google'), behaviour: 'Google: 5.2.1 disabled' }],
        ['stuffed@gmail.com', example('google', 'over quota'), { truth: 'exists', expected: 'risky', behaviour: 'Google: 452 4.2.2 over quota' }],
        ['popular@gmail.com', example('google', 'the user receives mail too fast'), { ...later, truth: 'exists', behaviour: 'Google: 450 4.2.1 receiving mail at a rate' }],
        ['spammed@gmail.com', example('google', 'IP not authorised'), { ...policy, behaviour: 'Google: 550 5.7.1 unsolicited mail (IP)' }],
        ['sundar@ws-acme.com', 'accept', { ...exists, behaviour: 'Google Workspace: existing mailbox' }],
        ['nobody@ws-acme.com', example('google', 'account does not exist'), { ...missing('google'), behaviour: 'Google Workspace: 5.1.1' }],
        ['anyone@ws-catchall.com', 'accept', { truth: 'unknowable', expected: 'risky', behaviour: 'Google Workspace: catch-all routing' }],
      ],
    },
    {
      ip: '127.0.0.12',
      mailboxes: [
        ['megan@contoso-lab.com', 'accept', { ...exists, behaviour: 'Microsoft 365: existing mailbox' }],
        ['ghost@contoso-lab.com', example('microsoft', 'recipient not in the tenant'), { ...missing('microsoft'), behaviour: 'Microsoft 365: 5.4.1 Access denied (edge blocking)' }],
        ['gone@contoso-lab.com', example('microsoft', 'recipient not found'), { ...missing('microsoft'), behaviour: 'Microsoft 365: 5.1.10 RecipientNotFound' }],
        ['banned@contoso-lab.com', example('microsoft', 'sending IP banned'), { ...policy, behaviour: 'Microsoft 365: 5.7.606 banned sending IP' }],
        ['busy@contoso-lab.com', example('microsoft', 'server busy'), { ...later, behaviour: 'Microsoft 365: 451 4.7.500 server busy' }],
        ['sam@outlook.com', 'accept', { ...exists, behaviour: 'Outlook.com: existing mailbox' }],
        ['ghost@outlook.com', example('microsoft', 'consumer Outlook'), { ...missing('microsoft'), behaviour: 'Outlook.com: 5.5.0 mailbox unavailable (S2017062302)' }],
      ],
    },
    {
      ip: '127.0.0.13',
      defaults: { 'yahoo.com': 'accept', 'aol.com': 'accept' },
      mailboxes: [
        ['real@yahoo.com', 'accept', { truth: 'exists', expected: 'risky', behaviour: 'Yahoo: 250 for an existing mailbox' }],
        ['ghost@yahoo.com', 'accept', { truth: 'missing', expected: 'risky', behaviour: 'Yahoo: 250 for a missing mailbox too (bounces later)' }],
        ['real@aol.com', 'accept', { truth: 'exists', expected: 'risky', behaviour: 'AOL: 250 to every RCPT' }],
        ['nope@yahoo.com', example('yahoo', 'no such account'), { ...missing('yahoo'), behaviour: "Yahoo: 554 this user doesn't have an account" }],
        ['bl@yahoo.com', example('yahoo', 'IP on a blocklist'), { ...policy, behaviour: 'Yahoo: 553 [BL21] Spamhaus' }],
        ['tss@yahoo.com', example('yahoo', 'deferred for volume'), { ...later, behaviour: 'Yahoo: 421 [TSS04] deferred' }],
      ],
    },
    {
      ip: '127.0.0.14',
      mailboxes: [
        ['tim@icloud.com', 'accept', { ...exists, behaviour: 'iCloud: existing mailbox' }],
        ['ghost@icloud.com', example('apple', 'user does not exist'), { ...missing('apple'), behaviour: 'iCloud: 5.1.1 user does not exist' }],
        ['cs@icloud.com', example('apple', 'rejected by local policy'), { ...policy, behaviour: 'iCloud: 554 5.7.1 [CS01] local policy' }],
        ['hm@icloud.com', example('apple', 'too many connections'), { ...later, behaviour: 'iCloud: 421 [HM08] too many connections' }],
      ],
    },
    {
      ip: '127.0.0.15',
      mailboxes: [
        ['alice@proton.me', 'accept', { ...exists, behaviour: 'Proton: existing mailbox' }],
        ['ghost@proton.me', example('protonmail', 'address does not exist'), { ...missing('protonmail'), behaviour: 'Proton: 5.1.1 Address does not exist' }],
        ['blk@proton.me', example('protonmail', 'sender IP rejected'), { ...policy, behaviour: 'Proton: 5.7.1 client host rejected' }],
      ],
    },
    {
      ip: '127.0.0.16',
      mailboxes: [
        ['raj@zohomail.com', 'accept', { ...exists, behaviour: 'Zoho: existing mailbox' }],
        ['ghost@zohomail.com', example('zoho', 'user does not exist'), { ...missing('zoho'), behaviour: 'Zoho: 5.1.1 User does not exist' }],
        ['relay@zohomail.com', example('zoho', 'relaying disallowed'), { ...policy, behaviour: 'Zoho: 553 Relaying disallowed' }],
      ],
    },
    { ip: '127.0.0.21', options: { rejectConnection: { code: 421, message: '4.7.0 mx.busy-mx.com Too many concurrent SMTP connections; please try again later' } }, mailboxes: [['kim@busy-mx.com', 'accept', { ...later, truth: 'exists', behaviour: '421 at connect (only MX)' }]] },
    { ip: '127.0.0.22', options: { requireTls: true }, mailboxes: [['lee@tls-only.com', 'accept', { ...exists, behaviour: 'STARTTLS required before MAIL' }]] },
    { ip: '127.0.0.23', options: { rejectConnection: { code: 554, message: '5.7.1 Your IP is listed at zen.spamhaus.org' } }, mailboxes: [['max@policy-greeting.com', 'accept', { ...policy, behaviour: '554 policy block at connect' }]] },
    { ip: '127.0.0.24', options: { rejectSender: { code: 553, message: '5.7.1 Sender address rejected: not owned by you' } }, mailboxes: [['ivy@sender-block.com', 'accept', { ...policy, behaviour: 'MAIL FROM refused (5.7.1)' }]] },
    {
      ip: '127.0.0.1',
      defaults: { 'catchall-corp.com': 'accept' },
      mailboxes: [
        ['john@acme-mail.com', 'accept', { ...exists, behaviour: 'plain existing mailbox' }],
        ['nobody@acme-mail.com', 'not-found', { ...missing('any'), behaviour: '550 5.1.1 (generic MTA)' }],
        ['full@acme-mail.com', 'full', { truth: 'exists', expected: 'risky', behaviour: '552 5.2.2 full' }],
        ['gone@acme-mail.com', 'disabled', { ...missing('any'), behaviour: '550 5.2.1 disabled' }],
        ['grey@acme-mail.com', example('any', 'postgrey'), { ...later, truth: 'exists', behaviour: 'postgrey 450 4.2.0 greylisted' }],
        ['grey2@acme-mail.com', 'greylist', { ...later, truth: 'exists', behaviour: '450 4.7.1 greylisted' }],
        ['tarpit@acme-mail.com', 'hang', { ...later, behaviour: 'tarpit: never answers RCPT' }],
        ['dropped@acme-mail.com', 'drop', { ...later, behaviour: 'connection dropped at RCPT' }],
        ['spamhaus@acme-mail.com', 'blocked', { ...policy, behaviour: '554 5.7.1 client host blocked (Spamhaus)' }],
        ['vague@acme-mail.com', { code: 550, message: 'Requested action not taken: mailbox unavailable' }, { ...policy, truth: 'exists', behaviour: 'RFC 5321 generic 550 "mailbox unavailable" (a policy block here)' }],
        ['info@acme-mail.com', 'accept', { truth: 'exists', expected: 'risky', behaviour: 'role account' }],
        ['dev@acme-mail.com', 'accept', { ...exists, behaviour: 'dev@: a person (Dev), not a role' }],
        ['jörg@acme-mail.com', 'accept', { ...exists, behaviour: 'SMTPUTF8 mailbox' }],
        ['jürgen@acme-mail.com', 'not-found', { ...missing('any'), behaviour: 'SMTPUTF8 mailbox, missing' }],
        ['anyone@catchall-corp.com', 'accept', { truth: 'unknowable', expected: 'risky', behaviour: 'catch-all domain' }],
        ['x@implicit-mx.com', 'accept', { ...exists, behaviour: 'no MX: A-record fallback' }],
        ['kim@fallback-mx.com', 'accept', { ...exists, behaviour: 'first MX 421, second MX answers' }],
        ['ana@gmaill.com', 'accept', { ...exists, behaviour: 'real domain one letter from gmail.com, working MX' }],
        ['pat@postfix-lab.com', 'accept', { ...exists, behaviour: 'Postfix: existing mailbox' }],
        ['ghost@postfix-lab.com', { code: 550, message: '5.1.1 <ghost@postfix-lab.com>: Recipient address rejected: User unknown in local recipient table' }, { ...missing('any'), behaviour: 'Postfix: 5.1.1 user unknown' }],
        ['denied@postfix-lab.com', example('any', 'Postfix restriction'), { ...policy, truth: 'exists', behaviour: 'Postfix: 5.7.1 Access denied (restriction)' }],
        ['exim@postfix-lab.com', example('any', 'Exim'), { ...missing('any'), behaviour: 'Exim: 550 Unrouteable address' }],
      ],
    },
  ];
}

/** Cases answered without any SMTP peer (DNS or no network at all). */
const OFFLINE_CASES: LabCase[] = [
  { address: 'x@null-mx.com', behaviour: 'RFC 7505 null MX', truth: 'missing', expected: 'invalid' },
  { address: 'x@no-mail.com', behaviour: 'no MX and no A', truth: 'missing', expected: 'invalid' },
  { address: 'x@missing-domain.com', behaviour: 'NXDOMAIN', truth: 'missing', expected: 'invalid' },
  { address: 'x@gone-mx.com', behaviour: 'MX that does not answer (connection refused)', truth: 'unknowable', expected: 'unknown' },
  { address: 'x@mailinator.com', behaviour: 'disposable domain', truth: 'unknowable', expected: 'risky' },
  { address: 'x@example.com', behaviour: 'reserved domain', truth: 'missing', expected: 'invalid' },
  { address: 'jo\u200bhn@acme-mail.com', behaviour: 'zero-width space in the local part', truth: 'missing', expected: 'invalid' },
  { address: 'john@[300.1.1.1]', behaviour: 'malformed IP literal', truth: 'missing', expected: 'invalid' },
];

export async function startLabWorld(options: { replyDelayMs?: number } = {}): Promise<LabWorld> {
  const dns = standardZone(new DnsPeer());
  for (const [domain, { mx, ip }] of Object.entries(DOMAINS)) {
    dns.set(domain, { MX: mx.map((exchange, i) => ({ exchange, priority: (i + 1) * 10 })), TXT: ['v=spf1 -all'] });
    mx.forEach((host, i) => dns.set(host, { A: [ip?.[i] ?? '127.0.0.1'] }));
  }
  const cases: LabCase[] = [];
  const peers: SmtpPeer[] = [];
  let port = 0;
  for (const plan of plans().sort((a, b) => (a.ip === '127.0.0.1' ? -1 : b.ip === '127.0.0.1' ? 1 : 0))) {
    const peer = new SmtpPeer({ ...plan.options, host: plan.ip, port, replyDelayMs: options.replyDelayMs });
    for (const [domain, behaviour] of Object.entries(plan.defaults ?? {})) peer.domainDefault(domain, behaviour);
    for (const [address, behaviour, label] of plan.mailboxes) {
      peer.script(address, behaviour);
      cases.push({ address, ...label });
    }
    port = await peer.start();
    peers.push(peer);
  }
  cases.push(...OFFLINE_CASES);
  const dnsServer = await dns.start();
  return {
    dns,
    peers,
    dnsServer,
    smtpPort: port,
    cases,
    sessions: () => peers.reduce((n, p) => n + p.connections.size, 0),
    catchAllProbes: () => {
      const counts = new Map<string, number>();
      for (const a of peers.flatMap((p) => p.rcptAddresses()).filter((r) => r.startsWith('vh-probe-'))) {
        const domain = a.slice(a.indexOf('@') + 1);
        counts.set(domain, (counts.get(domain) ?? 0) + 1);
      }
      return counts;
    },
    stop: async () => {
      await Promise.all([dns.stop(), ...peers.map((p) => p.stop())]);
    },
  };
}
