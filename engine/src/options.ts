import type { Redis } from 'ioredis';
import { parseSocksProxy, type SocksProxy } from './smtp-session';
import type { OperatorDomainLists } from './checks/domain-lists';

/** Settings of the local engine. Every network step is bounded by one of these timeouts. */
export interface LocalEngineOptions {
  /** Resolver servers (`ip` or `ip:port`); default: the system's resolvers. */
  dnsServers?: string[];
  /** Per DNS query, milliseconds (default 2000). */
  dnsTimeoutMs?: number;
  /** Talk SMTP to the mail servers (default true). Off: mailbox-level checks are skipped and the result says so. */
  smtp?: boolean;
  /** SMTP port of the mail servers (default 25; tests point it at a local peer). */
  smtpPort?: number;
  /** TCP connect to the mail server, milliseconds (default 3000). */
  smtpConnectTimeoutMs?: number;
  /** Each SMTP reply, milliseconds (default 3000; the whole conversation is capped by `smtpBudgetMs`). */
  smtpCommandTimeoutMs?: number;
  /** The whole verification, milliseconds (default 20000): past it the result is unknown. */
  totalTimeoutMs?: number;
  /** The envelope sender of the probe (default `verify@<heloName>`). Nothing is ever sent. Use an address at a domain you own. */
  mailFrom?: string;
  /** Name given in EHLO (default `localhost`: set a real name that resolves to your IP in production). */
  heloName?: string;
  /** Upgrade with STARTTLS when the server offers it (default true). */
  starttls?: boolean;
  /** SMTP sessions open at once per mail host (default 3); more verifications for that host wait their turn. */
  maxConnectionsPerHost?: number;
  /** New SMTP conversations per second per mail host when the limits are shared through Redis (default 0: none). */
  maxSessionsPerSecondPerHost?: number;
  /**
   * Share `maxConnectionsPerHost` (and the rate) with every engine process on this Redis, under this key
   * prefix (`verify-hub engine` passes its own). Without it the limit holds within this process only.
   */
  sharedLimits?: { redis: Redis; prefix: string };
  /**
   * The whole SMTP conversation of one address, milliseconds (default 4000): the cap a tarpit can cost.
   * A server that answers takes one round trip per command (well under a second).
   */
  smtpBudgetMs?: number;
  /**
   * What a 250 from a provider that accepts every RCPT (Yahoo, AOL) becomes: `risky` (default, billed) or
   * `unknown` (not billed, re-checked). Reason `provider_accepts_all` either way.
   */
  acceptAllVerdict?: AcceptAllVerdict;
  /**
   * How long an SMTP session stays open after an address, for the next address of the same mail server,
   * ms (default 2000; 0: one session per address, ended with QUIT). Reused with RSET, MAIL FROM, RCPT TO.
   */
  smtpSessionIdleMs?: number;
  /** RCPT commands one session carries at most before it is ended (default 20). */
  maxRcptPerSession?: number;
  /**
   * A temporary "user unknown" (a 4xx naming the recipient) is `unknown` / `smtp_user_unknown_temporary`;
   * the same refusal at least this long after the first, ms (default 3600000: one hour), makes it `invalid`.
   */
  userUnknownConfirmAfterMs?: number;
  /** How long a first temporary "user unknown" is remembered, ms (default 7 days). */
  userUnknownMemoryMs?: number;
  /**
   * Reach the mail servers through this SOCKS5 proxy, `socks5://[user:password@]host:port`
   * (`ENGINE_SMTP_PROXY`): cloud hosts block outbound port 25. DNS is still asked directly.
   */
  smtpProxy?: string;
  /** Domains never treated as disposable, whatever the lists say (`ENGINE_ALLOW_DOMAINS`); subdomains included. */
  allowDomains?: string[];
  /** Domains treated as disposable (`ENGINE_DENY_DOMAINS`); subdomains included. */
  denyDomains?: string[];
  /** Probe a random address to detect catch-all domains (default true). */
  catchAllProbe?: boolean;
  /**
   * Connect to MX hosts that resolve to private, loopback or link-local addresses (default false: such a
   * domain cannot receive mail from the internet, and a self-hosted API must not be turned into a probe of
   * its own network). Tests with local peers turn it on.
   */
  allowPrivateMx?: boolean;
  /** DNSBL zones queried for the MX addresses (default: the 10 zones of `DEFAULT_DNSBL_ZONES`). */
  dnsblZones?: string[];
  /** DKIM selectors tried (default: `DEFAULT_DKIM_SELECTORS`). */
  dkimSelectors?: string[];
  /** How long domain-level facts (MX, authentication, DNSBL, catch-all, TLD reachability) are cached, ms (default 600000; 0 = off). */
  domainCacheTtlMs?: number;
  /** Source of randomness for the catch-all probe address (tests). */
  randomToken?: () => string;
  /** Clock (tests). */
  now?: () => Date;
}

export type AcceptAllVerdict = 'risky' | 'unknown';

export const DEFAULT_DNSBL_ZONES = [
  'zen.spamhaus.org',
  'bl.spamcop.net',
  'b.barracudacentral.org',
  'dnsbl.sorbs.net',
  'psbl.surriel.com',
  'bl.mailspike.net',
  'dnsbl-1.uceprotect.net',
  'dnsbl.dronebl.org',
  'ix.dnsbl.manitu.net',
  'all.s5h.net',
];

export const DEFAULT_DKIM_SELECTORS = ['default', 'google', 'selector1', 'selector2', 'k1', 'dkim', 's1', 'mail'];

export type ResolvedOptions = Required<Omit<LocalEngineOptions, 'dnsServers' | 'mailFrom' | 'smtpProxy' | 'sharedLimits' | 'allowDomains' | 'denyDomains'>> & {
  operatorLists: OperatorDomainLists;
  dnsServers?: string[];
  mailFrom: string;
  smtpProxy?: SocksProxy;
  sharedLimits?: LocalEngineOptions['sharedLimits'];
};

export function resolveOptions(o: LocalEngineOptions = {}): ResolvedOptions {
  const heloName = o.heloName ?? defaultHeloName(o.mailFrom);
  return {
    dnsServers: o.dnsServers,
    operatorLists: { allow: domainSet(o.allowDomains), deny: domainSet(o.denyDomains) },
    smtpProxy: o.smtpProxy ? parseSocksProxy(o.smtpProxy) : undefined,
    dnsTimeoutMs: o.dnsTimeoutMs ?? 2000,
    smtp: o.smtp ?? true,
    smtpPort: o.smtpPort ?? 25,
    smtpConnectTimeoutMs: o.smtpConnectTimeoutMs ?? 3000,
    smtpCommandTimeoutMs: o.smtpCommandTimeoutMs ?? 3000,
    smtpBudgetMs: o.smtpBudgetMs ?? 4000,
    acceptAllVerdict: o.acceptAllVerdict ?? 'risky',
    smtpSessionIdleMs: o.smtpSessionIdleMs ?? 2000,
    maxRcptPerSession: o.maxRcptPerSession ?? 20,
    userUnknownConfirmAfterMs: o.userUnknownConfirmAfterMs ?? 3_600_000,
    userUnknownMemoryMs: o.userUnknownMemoryMs ?? 7 * 86_400_000,
    totalTimeoutMs: o.totalTimeoutMs ?? 20_000,
    mailFrom: o.mailFrom ?? `verify@${heloName}`,
    heloName,
    starttls: o.starttls ?? true,
    maxConnectionsPerHost: o.maxConnectionsPerHost ?? 3,
    maxSessionsPerSecondPerHost: o.maxSessionsPerSecondPerHost ?? 0,
    sharedLimits: o.sharedLimits,
    catchAllProbe: o.catchAllProbe ?? true,
    allowPrivateMx: o.allowPrivateMx ?? false,
    dnsblZones: o.dnsblZones ?? DEFAULT_DNSBL_ZONES,
    dkimSelectors: o.dkimSelectors ?? DEFAULT_DKIM_SELECTORS,
    domainCacheTtlMs: o.domainCacheTtlMs ?? 600_000,
    randomToken: o.randomToken ?? (() => require('node:crypto').randomBytes(6).toString('hex') as string),
    now: o.now ?? (() => new Date()),
  };
}

function domainSet(domains: string[] | undefined): Set<string> {
  return new Set((domains ?? []).map((d) => d.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '')).filter(Boolean));
}

/**
 * The EHLO name when none is set: the domain of the operator's MAIL FROM (a domain they own), else this
 * machine's host name when it is fully qualified, else `localhost` (`heloNameIsFallback` tells the CLI to
 * warn: big providers refuse a probe that introduces itself so).
 */
export function defaultHeloName(mailFrom: string | undefined): string {
  const fromDomain = mailFrom?.slice(mailFrom.lastIndexOf('@') + 1).toLowerCase();
  if (fromDomain && fromDomain.includes('.')) return fromDomain;
  const host = require('node:os').hostname() as string;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(host) && !/\.(local|localdomain|internal|lan)$/i.test(host) ? host.toLowerCase() : 'localhost';
}
