import { EventEmitter } from 'node:events';
import {
  deadline,
  normalizeEmail,
  syntaxInvalidVerification,
  VerificationSchema,
  type Checks,
  type Deliverability,
  type Verification,
  type Verifier,
  type VerifyOptions,
} from '@verify-hub/core';
import { checkAuthentication, type AuthenticationResult } from './checks/authentication';
import { checkBlacklists, type BlacklistResult } from './checks/dnsbl';
import { isDisposableDomain, isFreeProviderDomain, typoSuggestion } from './checks/domain-lists';
import { isGibberish, isRoleAccount, spamTrapLevel, subAddress, type SpamTrapEvidence } from './checks/local-part';
import { findMailHosts, isNonPublicAddress, type MailHost, type MailHostsResult } from './checks/mail-hosts';
import { isReservedDomain } from './checks/reserved-domains';
import { checkSyntax } from './checks/syntax';
import { ANCHOR_TLD, DnsClient } from './dns-client';
import { resolveOptions, type LocalEngineOptions, type ResolvedOptions } from './options';
import { detectProvider, type ProviderStrategy } from './providers';
import { deliverabilityGrade, scoreFor } from './scoring';
import { probeMailbox, type ProbeResult } from './smtp-probe';
import { classifyReply, type ReplyClass } from './smtp-classify';
import type { SmtpReply } from './smtp-session';
import { HostLimiter } from './host-limiter';
import { SharedHostLimiter, type HostSlots } from './shared-host-limiter';
import { CatchAllCache } from './catch-all-cache';
import { SmtpSessionPool } from './smtp-session-pool';
import type { Cluster, Redis } from 'ioredis';
import { TtlCache } from './ttl-cache';
import { LocalRefusalMemory, RedisRefusalMemory, type RefusalMemory } from './refusal-memory';

/** The names of the 28 checks, as reported (engine/README.md has the table). */
export const CHECK_NAMES = [
  'syntax', 'typo_suggestion', 'domain_exists', 'mx', 'implicit_mx', 'null_mx', 'mx_private', 'smtp_connect', 'smtp_greeting', 'starttls',
  'smtp', 'catch_all', 'greylisted', 'mailbox_full', 'mailbox_disabled', 'smtp_reply', 'provider', 'disposable', 'role_account',
  'free_provider', 'spam_trap_risk', 'blacklist', 'spf', 'dmarc', 'dkim', 'sub_addressing', 'gibberish', 'reserved_domain',
] as const;

interface DomainFacts {
  mailHosts: MailHostsResult;
  /** Set when the resolver gave no usable answer: `dns_unavailable` (it cannot see the internet) or `dns_error`. */
  dnsProblem: 'dns_unavailable' | 'dns_error' | null;
  /** NXDOMAIN confirmed by a resolver that answers for the TLD (or for `com`, when the TLD itself does not exist). */
  nxdomainConfirmed: boolean;
  auth: AuthenticationResult | null;
  blacklist: BlacklistResult | null;
}

export interface LocalEngineEvents {
  /** Emitted once, the first time the resolver is found unable to see the internet. */
  'dns-unavailable': [];
}

/**
 * The in-process verification engine (DESIGN.md §3). Constructing one is cheap: lists load on first use
 * and no socket is opened until `verify`. It never throws for an address: every failure becomes an
 * `unknown`, not-billable result with a reason.
 */
export class LocalEngine extends EventEmitter<LocalEngineEvents> implements Verifier {
  readonly options: ResolvedOptions;
  /** True once the resolver was found unable to see the internet (sandbox, locked-down host). */
  dnsUnavailable = false;
  private readonly dns: DnsClient;
  private readonly domainCache: TtlCache<DomainFacts>;
  private readonly hostLimiter: HostSlots;
  private readonly catchAllCache: CatchAllCache;
  private readonly sessionPool: SmtpSessionPool;
  private refusals: RefusalMemory;

  constructor(options: LocalEngineOptions = {}) {
    super();
    this.options = resolveOptions(options);
    this.dns = new DnsClient(this.options.dnsServers, this.options.dnsTimeoutMs, this.options.domainCacheTtlMs);
    this.domainCache = new TtlCache(this.options.domainCacheTtlMs);
    const shared = this.options.sharedLimits;
    this.hostLimiter = shared
      ? new SharedHostLimiter({ ...shared, maxConnectionsPerHost: this.options.maxConnectionsPerHost, maxSessionsPerSecondPerHost: this.options.maxSessionsPerSecondPerHost, leaseMs: this.options.smtpBudgetMs + 1000 })
      : new HostLimiter(this.options.maxConnectionsPerHost);
    this.catchAllCache = new CatchAllCache(this.options.domainCacheTtlMs);
    this.refusals = shared ? new RedisRefusalMemory(shared.redis, shared.prefix, this.options.userUnknownMemoryMs) : new LocalRefusalMemory(this.options.userUnknownMemoryMs);
    this.sessionPool = new SmtpSessionPool(this.options.smtpSessionIdleMs, this.options.maxRcptPerSession, this.options.maxConnectionsPerHost);
  }

  /** Whether the resolver can see the internet (it answers for `com`). Sets `dnsUnavailable` and emits once. */
  async checkDns(): Promise<boolean> {
    const ok = await this.dns.zoneAnswers(ANCHOR_TLD);
    if (!ok) this.markDnsUnavailable();
    else this.dnsUnavailable = false;
    return ok;
  }

  /** Forgets cached domain facts (for example after the resolver was fixed). */
  clearCache(): void {
    this.domainCache.clear();
    this.catchAllCache.clear();
  }

  async verify(input: string, { signal }: VerifyOptions = {}): Promise<Verification> {
    const now = this.options.now();
    // Callers in plain JavaScript (CSV cells, webhook bodies) may hand over anything: it is kept as text.
    const email = typeof input === 'string' ? input : String(input ?? '');
    const pre = normalizeEmail(email);
    const syntax = checkSyntax(typeof email === 'string' ? email : '');
    if (!pre.ok || !syntax.ok) {
      const v = syntaxInvalidVerification(email, now);
      // No SMTP conversation is held for an address that is not one: `not_checked`, never a refusal.
      return VerificationSchema.parse({ ...v, checks: { ...v.checks, smtpCheck: 'not_checked', syntaxProblem: !syntax.ok ? syntax.problem : pre.ok ? 'invalid' : pre.problem } });
    }
    const domain = syntax.domain;
    const localPart = syntax.localPart;
    const typo = syntax.ipLiteral ? null : typoSuggestion(domain);
    const roleAccount = isRoleAccount(localPart);
    const gibberish = isGibberish(localPart);
    const checks: Checks & Record<string, unknown> = {
      syntax: true,
      mx: null,
      smtp: null,
      smtpCheck: 'not_checked',
      disposable: !syntax.ipLiteral && isDisposableDomain(domain, this.options.operatorLists),
      roleAccount,
      catchAll: null,
      freeProvider: !syntax.ipLiteral && isFreeProviderDomain(domain, this.options.operatorLists),
      spamTrapRisk: 'none',
      typoSuggestion: typo,
      domainExists: null,
      implicitMx: null,
      nullMx: null,
      mxPrivate: null,
      smtpConnect: null,
      smtpGreeting: null,
      starttls: null,
      greylisted: null,
      mailboxFull: null,
      mailboxDisabled: null,
      smtpReply: null,
      provider: null,
      subAddressing: subAddress(localPart).tag !== null,
      gibberish,
      reservedDomain: !syntax.ipLiteral && isReservedDomain(domain),
    };
    const trapEvidence: SpamTrapEvidence = { localPart, typoDomain: typo !== null, roleAccount, gibberish, catchAll: null, blacklisted: false };
    let deliverability: Deliverability | undefined;
    let hasMailHost = false;
    const finish = (reason: string): Verification => {
      checks.spamTrapRisk = spamTrapLevel(trapEvidence);
      const auth = deliverability?.authentication;
      const { risk, score } = scoreFor(
        reason,
        {
          gibberish,
          spamTrapRisk: checks.spamTrapRisk,
          blacklisted: trapEvidence.blacklisted,
          // A suggestion suggests; it never condemns a domain that has working mail hosts.
          typoSuggestion: trapEvidence.typoDomain,
          noAuthentication: auth !== undefined && auth.spf === 'missing' && auth.dmarc === 'missing',
        },
        hasMailHost,
        // The operator's choice for providers that accept every RCPT (engine/README.md "Provider strategies").
        reason === 'provider_accepts_all' && this.options.acceptAllVerdict === 'unknown',
      );
      return VerificationSchema.parse({
        email,
        normalized: pre.normalized,
        score,
        risk,
        reason,
        checks,
        ...(deliverability ? { deliverability } : {}),
        checkedAt: now.toISOString(),
        billable: risk !== 'unknown',
      });
    };

    if (checks.reservedDomain) return finish('reserved_domain');
    if (syntax.ipLiteral) return finish('ip_literal');
    if (checks.disposable) return finish('disposable');

    const online = async (combined: AbortSignal): Promise<Verification> => {
      const facts = await this.domainFacts(domain);
      if (facts.dnsProblem) return finish(facts.dnsProblem);
      const hosts = facts.mailHosts;
      if (hosts.kind === 'nxdomain') {
        checks.domainExists = false;
        checks.mx = false;
        return finish('domain_not_found');
      }
      checks.domainExists = true;
      if (hosts.kind === 'null_mx') {
        Object.assign(checks, { mx: false, nullMx: true });
        return finish('null_mx');
      }
      checks.nullMx = false;
      if (hosts.kind !== 'hosts') {
        Object.assign(checks, { mx: false, implicitMx: false });
        return finish('no_mx');
      }
      if (facts.auth && facts.blacklist) {
        const grade = deliverabilityGrade(facts.auth, facts.blacklist.listedCount);
        deliverability = {
          ...grade,
          authentication: facts.auth,
          blacklist: { listed: facts.blacklist.listed, listedCount: facts.blacklist.listedCount, totalChecks: facts.blacklist.totalChecks },
        };
        trapEvidence.blacklisted = facts.blacklist.listed;
      }
      const strategy = detectProvider(hosts.hosts.map((h) => h.name));
      checks.provider = strategy?.id ?? null;
      checks.mx = true;
      // A real domain with mail hosts that happens to be close to a big provider is not a typo trap:
      // the suggestion travels as did_you_mean, and the SMTP answer decides.
      trapEvidence.typoDomain = false;
      checks.implicitMx = hosts.implicit;
      const allPrivate = hosts.hosts.every((h) => h.addresses.every(isNonPublicAddress));
      checks.mxPrivate = allPrivate;
      if (allPrivate && !this.options.allowPrivateMx) return finish('mx_private');
      hasMailHost = true;
      if (!this.options.smtp) return finish('smtp_not_checked');

      const usable = this.options.allowPrivateMx ? hosts.hosts : publicOnly(hosts.hosts);
      const probe = await this.hostLimiter.run(usable[0]?.name ?? domain, combined, () =>
        withBudget(combined, this.options.smtpBudgetMs, (budget) =>
          probeMailbox(usable, pre.normalized.replace(/@[^@]*$/, `@${domain}`), domain, strategy, {
            port: this.options.smtpPort,
            heloName: this.options.heloName,
            mailFrom: this.options.mailFrom,
            starttls: this.options.starttls,
            catchAllProbe: this.options.catchAllProbe,
            connectTimeoutMs: Math.min(this.options.smtpConnectTimeoutMs, this.options.smtpBudgetMs),
            commandTimeoutMs: this.options.smtpCommandTimeoutMs,
            randomLocalPart: () => `vh-probe-${this.options.randomToken()}`,
            catchAll: this.catchAllCache,
            proxy: this.options.smtpProxy,
            pool: this.sessionPool.enabled ? this.sessionPool : undefined,
            signal: budget,
          }),
        ),
      );
      if (signal?.aborted) throw signal.reason;
      return finish(applyProbe(probe, checks, strategy, trapEvidence, await this.refusedBefore(probe, pre.normalized, now.getTime())));
    };

    // Only now, with network work ahead, is a deadline armed; it is cleared as soon as the answer is known.
    if (signal?.aborted) throw signal.reason;
    const timeLimit = deadline(this.options.totalTimeoutMs, signal, () => new Error('verification deadline reached'));
    try {
      return await online(timeLimit.signal);
    } catch {
      if (signal?.aborted) throw signal.reason;
      // A bug or an unforeseen network state must not lose the address: it is re-checked later.
      return finish(timeLimit.signal.aborted ? 'engine_timeout' : 'engine_error');
    } finally {
      timeLimit.clear();
    }
  }

  /** Ends the SMTP sessions kept open for the next address (idle ones never keep the process alive anyway). */
  async close(): Promise<void> {
    await this.sessionPool.close();
  }

  /**
   * Remember temporary "user unknown" refusals in this Redis (under `prefix`), so that a re-check made by
   * another process (a hub's worker) sees the first refusal. The caller owns the connection; once it is
   * closed, refusals are simply not confirmed (the address stays unknown).
   */
  shareRefusals(redis: Redis | Cluster, prefix: string): void {
    this.refusals = new RedisRefusalMemory(redis, prefix, this.options.userUnknownMemoryMs);
  }

  /**
   * For a temporary "user unknown": was this mailbox refused so at least `userUnknownConfirmAfterMs` ago
   * (then it is missing)? An accepted mailbox forgets its earlier refusal. A memory that fails answers no.
   */
  private async refusedBefore(probe: ProbeResult, address: string, now: number): Promise<boolean> {
    const cls = probe.rcpt?.class;
    try {
      if (cls === 'accepted') await this.refusals.forget(address);
      if (cls !== 'user_unknown_temporary') return false;
      return now - (await this.refusals.firstRefusal(address, now)) >= this.options.userUnknownConfirmAfterMs;
    } catch {
      return false;
    }
  }

  private async domainFacts(domain: string): Promise<DomainFacts> {
    const facts = await this.lookUpDomain(domain);
    // A resolver problem is not a fact about the domain: ask again next time.
    if (facts.dnsProblem) this.domainCache.delete(domain);
    return facts;
  }

  private lookUpDomain(domain: string): Promise<DomainFacts> {
    return this.domainCache.get(domain, async () => {
      const facts: DomainFacts = { mailHosts: { kind: 'error', code: 'ENOTQUERIED' }, dnsProblem: null, nxdomainConfirmed: false, auth: null, blacklist: null };
      // Once the resolver was found blind, answer at once (the anchor probe is cached) instead of timing out per domain.
      if (this.dnsUnavailable && !(await this.checkDns())) return { ...facts, dnsProblem: 'dns_unavailable' };
      facts.mailHosts = await findMailHosts(this.dns, domain);
      if (facts.mailHosts.kind === 'nxdomain' || facts.mailHosts.kind === 'error') {
        const tld = domain.slice(domain.lastIndexOf('.') + 1);
        const tldAnswers = facts.mailHosts.kind === 'nxdomain' && (await this.dns.zoneAnswers(tld));
        if (!tldAnswers && !(await this.checkDns())) return { ...facts, dnsProblem: 'dns_unavailable' };
        if (facts.mailHosts.kind === 'error') return { ...facts, dnsProblem: 'dns_error' };
        return { ...facts, nxdomainConfirmed: true };
      }
      if (facts.mailHosts.kind === 'hosts') {
        const addresses = facts.mailHosts.hosts[0]!.addresses;
        const [auth, blacklist] = await Promise.all([
          checkAuthentication(this.dns, domain, this.options.dkimSelectors),
          checkBlacklists(this.dns, addresses.filter((a) => !isNonPublicAddress(a) || this.options.allowPrivateMx), this.options.dnsblZones),
        ]);
        facts.auth = auth;
        facts.blacklist = blacklist;
      }
      return facts;
    });
  }

  private markDnsUnavailable(): void {
    if (this.dnsUnavailable) return;
    this.dnsUnavailable = true;
    this.emit('dns-unavailable');
  }
}

/** The step whose refusal ended a conversation before RCPT: what the reply can be about. */
const FAILURE_STAGE = { greeting_rejected: 'greeting', helo_rejected: 'ehlo', sender_rejected: 'mail' } as const;

/** A temporary "user unknown" is re-checked soon: the hub's first re-check (30 min) is within this hint. */
const USER_UNKNOWN_RECHECK_SECONDS = 1800;

/** Copies what the SMTP conversation showed into the checks and returns the reason. */
function applyProbe(probe: ProbeResult, checks: Checks & Record<string, unknown>, strategy: ProviderStrategy | null, trap: SpamTrapEvidence, userUnknownConfirmed: boolean): string {
  checks.smtpConnect = probe.connected;
  checks.smtpGreeting = probe.greeting;
  checks.starttls = probe.starttls;
  const reply = probe.rcpt?.reply ?? probe.failureReply;
  const failureClass = probe.failureReply && probe.failureReply.code < 500 ? classifyReply(probe.failureReply, FAILURE_STAGE[probe.failure as keyof typeof FAILURE_STAGE] ?? 'greeting') : null;
  checks.smtpReply = reply ? { code: reply.code, enhanced: reply.enhanced, class: probe.rcpt?.class ?? failureClass ?? probe.failure } : null;
  switch (probe.failure) {
    case 'connect_failed':
    case 'tls_failed':
      checks.smtpCheck = 'unreachable';
      return 'smtp_unreachable';
    case 'timeout':
      checks.smtpCheck = 'timeout';
      return 'smtp_timeout';
    case 'dropped':
      checks.smtpCheck = 'unreachable';
      return 'smtp_connection_dropped';
    case 'greeting_rejected':
    case 'helo_rejected':
    case 'sender_rejected':
      // A 4xx before RCPT (421 at connect: busy, too many connections) is a "come back later", with a hint.
      if (failureClass) return temporaryOutcome(failureClass, probe.failureReply!, checks);
      checks.smtpCheck = 'blocked';
      return 'smtp_policy_block';
    case null:
      break;
  }
  const rcpt = probe.rcpt!;
  checks.greylisted = rcpt.class === 'greylisted';
  checks.mailboxFull = rcpt.class === 'mailbox_full';
  checks.mailboxDisabled = rcpt.class === 'mailbox_disabled';
  switch (rcpt.class) {
    case 'mailbox_not_found':
      Object.assign(checks, { smtp: false, smtpCheck: 'undeliverable' });
      return 'mailbox_not_found';
    case 'mailbox_disabled':
      Object.assign(checks, { smtp: false, smtpCheck: 'undeliverable' });
      return 'mailbox_disabled';
    case 'mailbox_full':
      Object.assign(checks, { smtp: true, smtpCheck: 'mailbox_full' });
      return 'mailbox_full';
    case 'user_unknown_temporary':
      // Refused the same way on a re-check hours after the first refusal: the mailbox does not exist.
      if (userUnknownConfirmed) {
        Object.assign(checks, { smtp: false, smtpCheck: 'undeliverable' });
        return 'mailbox_not_found';
      }
      checks.smtpCheck = 'temporary_failure';
      checks.retryAfterSeconds = USER_UNKNOWN_RECHECK_SECONDS;
      return 'smtp_user_unknown_temporary';
    case 'greylisted':
    case 'rate_limited':
    case 'temporary':
      return temporaryOutcome(rcpt.class, rcpt.reply, checks);
    case 'blocked':
      checks.smtpCheck = 'blocked';
      return 'smtp_policy_block';
    case 'ambiguous':
      checks.smtpCheck = 'ambiguous';
      return 'smtp_ambiguous';
    case 'accepted':
      break;
  }
  if (strategy?.acceptsAllRcpt) {
    // A 250 from a provider that accepts every RCPT proves nothing about the mailbox: say so, never "safe".
    checks.smtpCheck = 'deliverable';
    checks.catchAll = true;
    checks.catchAllConfidence = 0.9;
    trap.catchAll = true;
    return 'provider_accepts_all';
  }
  checks.smtp = true;
  if (probe.randomAccepted !== null) {
    checks.catchAll = probe.randomAccepted;
    checks.catchAllConfidence = probe.randomAccepted ? 0.95 : 0.05;
  }
  trap.catchAll = checks.catchAll;
  checks.smtpCheck = checks.catchAll ? 'catch_all' : 'deliverable';
  if (checks.catchAll) return 'catch_all';
  if (spamTrapLevel(trap) === 'high') return 'spam_trap';
  if (checks.roleAccount) return 'role_account';
  return 'deliverable';
}

/** Greylisting, rate limits and other 4xx: unknown, re-checked after the server's figure (else a default per kind). */
function temporaryOutcome(cls: ReplyClass, reply: SmtpReply, checks: Checks & Record<string, unknown>): string {
  if (cls === 'greylisted') {
    checks.smtpCheck = 'greylisted';
    checks.retryAfterSeconds = retryHint(reply.text, 300);
    return 'greylisted';
  }
  checks.smtpCheck = 'temporary_failure';
  if (cls === 'rate_limited') {
    checks.retryAfterSeconds = retryHint(reply.text, 900);
    return 'smtp_rate_limited';
  }
  checks.retryAfterSeconds = retryHint(reply.text, 300);
  return 'smtp_temporary_failure';
}

/**
 * Runs the SMTP work of one address under its own budget (the tarpit cap): past it the session ends as a
 * timeout. The budget starts when the host's turn comes, so waiting behind other addresses is not counted.
 */
async function withBudget<T>(parent: AbortSignal, budgetMs: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const budget = deadline(budgetMs, parent, () => new Error('SMTP time budget spent'));
  try {
    return await work(budget.signal);
  } finally {
    budget.clear();
  }
}

function publicOnly(hosts: MailHost[]): MailHost[] {
  return hosts.map((h) => ({ ...h, addresses: h.addresses.filter((a) => !isNonPublicAddress(a)) })).filter((h) => h.addresses.length > 0);
}

/** Seconds to wait before re-checking: what the server says, else the fallback. */
function retryHint(text: string, fallback: number): number {
  const m = /(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?)\b/i.exec(text);
  if (!m) return fallback;
  const n = Number(m[1]);
  return /^m/i.test(m[2]!) ? n * 60 : n;
}
