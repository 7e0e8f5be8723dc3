import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import type { LocalEngineOptions } from '@verify-hub/engine';
import { engineFor as loopbackEngine } from './helpers';

describe('verdicts a marketer can trust', () => {
  let world: MailWorld;
  // Timeouts with room for a loaded machine: these tests are about verdicts, not speed.
  const engineFor = (w: MailWorld, options: LocalEngineOptions = {}) => loopbackEngine(w, { dnsTimeoutMs: 2000, smtpCommandTimeoutMs: 2000, ...options });

  beforeAll(async () => {
    world = await startMailWorld();
    // A real domain one letter from gmail.com, with its own working mail host.
    world.dns.set('gmaill.com', { MX: [{ exchange: 'mx.gmaill.com', priority: 10 }], TXT: ['v=spf1 -all'] }).set('mx.gmaill.com', { A: ['127.0.0.1'] });
    world.dns.set('_dmarc.gmaill.com', { TXT: ['v=DMARC1; p=reject'] });
    world.smtp.script('ana@gmaill.com', 'accept');
    world.smtp.script('policy@acme-mail.com', { code: 550, message: '5.7.1 Service unavailable, Client host [192.0.2.1] blocked using Spamhaus' });
    world.smtp.script('generic@acme-mail.com', { code: 550, message: 'Requested action not taken: mailbox unavailable' });
    world.smtp.script('m365@acme-mail.com', { code: 550, message: '5.4.1 Recipient address rejected: Access denied. AS(201806281)' });
    world.smtp.script('rate@acme-mail.com', { code: 450, message: '4.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.' });
    world.smtp.script('dev@acme-mail.com', 'accept').script('hr@acme-mail.com', 'accept').script('hang@acme-mail.com', 'hang');
  });
  afterAll(async () => {
    await world.stop();
  });

  it('a domain with working MX is never downgraded for being close to a big provider: the suggestion only travels as did_you_mean', async () => {
    const v = await engineFor(world).verify('ana@gmaill.com');
    expect(v).toMatchObject({ risk: 'safe', reason: 'deliverable', score: 95, checks: { typoSuggestion: 'gmail.com', spamTrapRisk: 'none' } });
  });

  it('a typo domain without mail hosts is invalid for that reason, with the suggestion', async () => {
    const v = await engineFor(world).verify('ana@gmal.com');
    expect(v).toMatchObject({ risk: 'invalid', checks: { typoSuggestion: 'gmail.com' } });
    expect(['domain_not_found', 'no_mx']).toContain(v.reason);
  });

  it.each([
    ['policy@acme-mail.com', 'unknown', 'smtp_policy_block', 'blocked'],
    ['generic@acme-mail.com', 'unknown', 'smtp_ambiguous', 'ambiguous'],
    ['m365@acme-mail.com', 'invalid', 'mailbox_not_found', 'undeliverable'],
    ['rate@acme-mail.com', 'unknown', 'smtp_rate_limited', 'temporary_failure'],
  ])('%s -> %s (%s)', async (address, risk, reason, smtpCheck) => {
    const v = await engineFor(world).verify(address);
    expect({ risk: v.risk, reason: v.reason, smtpCheck: v.checks.smtpCheck }).toEqual({ risk, reason, smtpCheck });
    if (reason === 'smtp_rate_limited') expect(v.checks.retryAfterSeconds).toBe(900);
  });

  it('dev@ and hr@ can be people: not role accounts', async () => {
    for (const address of ['dev@acme-mail.com', 'hr@acme-mail.com']) {
      expect(await engineFor(world).verify(address)).toMatchObject({ risk: 'safe', checks: { roleAccount: false } });
    }
  });

  it('every verdict of a server that accepts every address says so in its reason, whatever else the address is', async () => {
    // Role accounts, gibberish and trap-like names at a catch-all domain or an accept-all provider: the 250 proves nothing.
    for (const address of ['info@catchall-corp.com', 'qwertyasdfg@catchall-corp.com', 'spamtrap@catchall-corp.com']) {
      expect(await engineFor(world).verify(address)).toMatchObject({ reason: 'catch_all', checks: { catchAll: true } });
    }
    for (const address of ['info@yahoo-hosted.com', 'spamtrap@yahoo-hosted.com']) {
      expect(await engineFor(world).verify(address)).toMatchObject({ reason: 'provider_accepts_all', checks: { catchAll: true } });
    }
  });

  it('a provider that accepts every RCPT: risky by default, unknown (not billed) when the operator says so; reason provider_accepts_all', async () => {
    const risky = await engineFor(world).verify('someone@yahoo-hosted.com');
    expect(risky).toMatchObject({ risk: 'risky', reason: 'provider_accepts_all', billable: true, checks: { smtp: null, catchAll: true } });
    const unknown = await engineFor(world, { acceptAllVerdict: 'unknown' }).verify('someone@yahoo-hosted.com');
    expect(unknown).toMatchObject({ risk: 'unknown', reason: 'provider_accepts_all', billable: false });
  });

  it('one catch-all probe per domain per cache period', async () => {
    world.smtp.script('a1@acme-mail.com', 'accept').script('a2@acme-mail.com', 'accept').script('a3@acme-mail.com', 'accept');
    const cached = engineFor(world, { domainCacheTtlMs: 60_000 });
    world.smtp.connections.clear();
    for (const a of ['a1', 'a2', 'a3']) expect(await cached.verify(`${a}@acme-mail.com`)).toMatchObject({ risk: 'safe', checks: { catchAll: false } });
    expect(world.smtp.rcptAddresses().filter((a) => a.startsWith('vh-probe-'))).toHaveLength(1);
  });

  it('declares SMTPUTF8 for a non-ASCII mailbox when the server offers it', async () => {
    world.smtp.script('jörg@acme-mail.com', 'accept');
    world.smtp.connections.clear();
    const v = await engineFor(world).verify('jörg@acme-mail.com');
    expect(v.risk).toBe('safe');
    expect([...world.smtp.connections.values()][0]!.commands).toContain('MAIL FROM:<probe@verifier.acme-tools.com> SMTPUTF8');
  });

  it('a tarpit costs no more than the SMTP budget', async () => {
    const started = Date.now();
    const v = await engineFor(world, { smtpBudgetMs: 700, smtpCommandTimeoutMs: 5000 }).verify('hang@acme-mail.com');
    expect(v).toMatchObject({ risk: 'unknown', reason: 'smtp_timeout' });
    expect(Date.now() - started).toBeLessThan(700 + 1500);
  });
});
