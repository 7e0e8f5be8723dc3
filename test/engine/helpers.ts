import { LocalEngine, type LocalEngineOptions } from '@verify-hub/engine';
import type { MailWorld } from '../fakes/mail-peers';

/**
 * An engine wired to the loopback mail world, with short SMTP timeouts so failures are found quickly.
 * The fake DNS server answers from this same process, so a busy event loop (GC, a loaded CI machine)
 * delays it: its timeout is generous, or a verdict turns into `dns_error` at random (a CI run did).
 */
export function engineFor(world: MailWorld, options: LocalEngineOptions = {}): LocalEngine {
  return new LocalEngine({
    dnsServers: [world.dnsServer],
    smtpPort: world.smtpPort,
    allowPrivateMx: true,
    dnsTimeoutMs: 2000,
    smtpConnectTimeoutMs: 500,
    smtpCommandTimeoutMs: 400,
    totalTimeoutMs: 5000,
    heloName: 'verifier.acme-tools.com',
    mailFrom: 'probe@verifier.acme-tools.com',
    domainCacheTtlMs: 0,
    // One session per address, so tests can read each conversation whole (tests of reuse turn it on).
    smtpSessionIdleMs: 0,
    ...options,
  });
}
