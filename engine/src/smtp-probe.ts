import { classifyReply, type ReplyClass } from './smtp-classify';
import { SmtpNetworkError, SmtpSession, type SmtpReply, type SocksProxy } from './smtp-session';
import type { PooledSession, SmtpSessionPool } from './smtp-session-pool';
import type { CatchAllCache } from './catch-all-cache';
import type { MailHost } from './checks/mail-hosts';
import { catchAllProbeWorthIt, type ProviderStrategy } from './providers';

export interface ProbeSettings {
  port: number;
  heloName: string;
  mailFrom: string;
  starttls: boolean;
  catchAllProbe: boolean;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  randomLocalPart: () => string;
  /** Catch-all answers per domain: one random RCPT per domain per cache period. */
  catchAll: CatchAllCache;
  /** The SOCKS5 proxy every connection goes through, if any. */
  proxy?: SocksProxy;
  /** Open sessions reused across addresses of one server (absent: one session per address). */
  pool?: SmtpSessionPool;
  signal?: AbortSignal;
}

export type ProbeFailure = SmtpNetworkError['kind'] | 'greeting_rejected' | 'helo_rejected' | 'sender_rejected';

export interface ProbeResult {
  host: string | null;
  connected: boolean;
  /** 220 greeting and EHLO (or HELO) accepted. */
  greeting: boolean | null;
  /** STARTTLS offered and the upgrade succeeded; false when offered and it failed or when not offered. */
  starttls: boolean | null;
  /** The RCPT TO answer for the mailbox, when the conversation got that far. */
  rcpt: { class: ReplyClass; reply: SmtpReply } | null;
  /** A random address at the same domain was accepted (null: not probed or no clear answer). */
  randomAccepted: boolean | null;
  failure: ProbeFailure | null;
  /** The reply behind a failure at greeting, EHLO or MAIL FROM. */
  failureReply?: SmtpReply;
  /** The random address was sent in this conversation (false when skipped or answered from the cache). */
  catchAllProbed: boolean;
}

/**
 * The SMTP conversation: connect, greeting, EHLO (STARTTLS and EHLO again when offered), MAIL FROM,
 * RCPT TO the mailbox, RCPT TO a random address (catch-all probe, unless the domain's answer is known),
 * then RSET and back to the pool for the next address of that server, or QUIT. Never DATA. Tries the next
 * MX when a connection cannot be made or the greeting is a 4xx.
 */
export async function probeMailbox(hosts: MailHost[], address: string, domain: string, strategy: ProviderStrategy | null, s: ProbeSettings): Promise<ProbeResult> {
  let last: ProbeResult = { host: null, connected: false, greeting: null, starttls: null, rcpt: null, randomAccepted: null, failure: 'connect_failed', catchAllProbed: false };
  for (const host of hosts.slice(0, 2)) {
    for (const ip of host.addresses.slice(0, 1)) {
      last = await conversation(ip, host.name, address, domain, strategy, s, s.starttls);
      // A failed TLS upgrade leaves the connection unusable: try once more in plain text.
      if (last.failure === 'tls_failed') last = { ...(await conversation(ip, host.name, address, domain, strategy, s, false)), starttls: false };
      // A 4xx greeting (421 busy) is the server's way of saying "try another MX" (RFC 5321 §5.1).
      const busy = last.failure === 'greeting_rejected' && (last.failureReply?.code ?? 500) < 500;
      if ((last.connected && !busy) || s.signal?.aborted) return last;
    }
  }
  return last;
}

async function conversation(ip: string, hostName: string, address: string, domain: string, strategy: ProviderStrategy | null, s: ProbeSettings, useTls: boolean): Promise<ProbeResult> {
  const result: ProbeResult = { host: hostName, connected: false, greeting: null, starttls: null, rcpt: null, randomAccepted: null, failure: null, catchAllProbed: false };
  // Per MX host name and address, as the host limiter counts: the idle sessions of one host stay within its limit.
  const server = `${hostName}|${ip}:${s.port}:${useTls ? 'tls' : 'plain'}`;
  let pooled: PooledSession | undefined = await s.pool?.take(server);
  const reused = pooled !== undefined;
  let reusable = false;
  try {
    if (pooled) {
      pooled.session.bind(s.signal);
      Object.assign(result, { connected: true, greeting: true, starttls: pooled.starttls });
    } else {
      const opened = await establish(ip, hostName, s, useTls, result);
      if ('failure' in opened) return opened.failure;
      pooled = opened;
    }
    const { session, capabilities } = pooled;
    // RFC 6531: a non-ASCII address may only be given to a server that offers SMTPUTF8, and then declared so.
    const utf8 = /[^\p{ASCII}]/u.test(address) && capabilities.some((l) => /^250[- ]SMTPUTF8\b/i.test(l));
    const from = await session.command(`MAIL FROM:<${s.mailFrom}>${utf8 ? ' SMTPUTF8' : ''}`);
    if (from.code !== 250) return fail(result, 'sender_rejected', from);
    const rcpt = await session.command(`RCPT TO:<${address}>`);
    pooled.rcpts++;
    // A reused session may reach the server's per-session recipient limit before ours: that is about the
    // session, not the mailbox, so this address gets a fresh one.
    if (reused && rcpt.code === 452 && /too many recipients/i.test(rcpt.text)) {
      await pooled.session.quit();
      pooled = undefined;
      return await conversation(ip, hostName, address, domain, strategy, { ...s, pool: undefined }, useTls);
    }
    result.rcpt = { class: classifyReply(rcpt), reply: rcpt };
    if (result.rcpt.class === 'accepted' && s.catchAllProbe && catchAllProbeWorthIt(strategy, domain)) {
      const answer = await s.catchAll.answer(domain, async () => {
        const random = await session.command(`RCPT TO:<${s.randomLocalPart()}@${domain}>`);
        pooled!.rcpts++;
        const cls = classifyReply(random);
        return cls === 'accepted' ? true : cls === 'mailbox_not_found' || cls === 'mailbox_disabled' ? false : null;
      });
      result.randomAccepted = answer.catchAll;
      result.catchAllProbed = answer.probed;
    }
    // Only a session whose every step was answered goes back to the pool (a refused step may mean the server is about to hang up).
    reusable = from.code === 250 && (rcpt.code < 400 || (rcpt.code >= 500 && result.rcpt.class !== 'blocked'));
    return result;
  } catch (error) {
    if (error instanceof SmtpNetworkError) {
      // A reused session the server closed while it was idle says nothing about this address: start afresh.
      if (reused && error.kind === 'dropped' && result.rcpt === null && !s.signal?.aborted) return conversation(ip, hostName, address, domain, strategy, { ...s, pool: undefined }, useTls);
      if (result.greeting === null && result.connected && error.kind !== 'tls_failed') result.greeting = false;
      return { ...result, failure: error.kind };
    }
    throw error;
  } finally {
    if (pooled && reusable && s.pool && !s.signal?.aborted) void s.pool.give(server, pooled);
    else await pooled?.session.quit();
  }
}

/** Connect, greeting, EHLO (HELO fallback), STARTTLS and EHLO again when offered. */
async function establish(ip: string, hostName: string, s: ProbeSettings, useTls: boolean, result: ProbeResult): Promise<PooledSession | { failure: ProbeResult }> {
  const opened = await SmtpSession.open({ host: ip, port: s.port, connectTimeoutMs: s.connectTimeoutMs, commandTimeoutMs: s.commandTimeoutMs, signal: s.signal, proxy: s.proxy });
  const session = opened.session;
  result.connected = true;
  const failWith = async (failure: ProbeFailure, reply: SmtpReply) => {
    await session.quit();
    return { failure: fail(result, failure, reply) };
  };
  try {
    if (opened.greeting.code !== 220) return await failWith('greeting_rejected', opened.greeting);
    let ehlo = await session.command(`EHLO ${s.heloName}`);
    if (ehlo.code !== 250) {
      ehlo = await session.command(`HELO ${s.heloName}`);
      if (ehlo.code !== 250) return await failWith('helo_rejected', ehlo);
    }
    let capabilities = ehlo.lines;
    const offersTls = ehlo.lines.some((l) => /^250[- ]STARTTLS\b/i.test(l));
    result.starttls = offersTls ? null : false;
    if (offersTls && useTls) {
      const ready = await session.command('STARTTLS');
      if (ready.code === 220) {
        await session.startTls(hostName);
        result.starttls = true;
        const again = await session.command(`EHLO ${s.heloName}`);
        if (again.code !== 250) return await failWith('helo_rejected', again);
        capabilities = again.lines;
      } else {
        result.starttls = false;
      }
    } else if (offersTls) {
      result.starttls = false;
    }
    result.greeting = true;
    return { session, capabilities, starttls: result.starttls, rcpts: 0 };
  } catch (error) {
    session.destroy();
    throw error;
  }
}

function fail(result: ProbeResult, failure: ProbeFailure, reply: SmtpReply): ProbeResult {
  return { ...result, greeting: failure === 'sender_rejected' ? result.greeting : false, failure, failureReply: reply };
}
