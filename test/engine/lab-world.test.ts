import type { LocalEngine } from '@verify-hub/engine';
import { startLabWorld, type LabWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/** The labelled scripted mail world (issue 17): every case ends with the risk an honest engine gives. */
describe('accuracy in the scripted mail world', () => {
  let lab: LabWorld;
  let engine: LocalEngine;
  const given = new Map<string, { risk: string; reason: string; retryAfterSeconds?: number | null }>();

  beforeAll(async () => {
    lab = await startLabWorld();
    const world = { dnsServer: lab.dnsServer, smtpPort: lab.smtpPort } as never;
    const base = { totalTimeoutMs: 20_000, domainCacheTtlMs: 60_000, smtpSessionIdleMs: 2000 };
    // Tarpits need a tight budget to show what it costs; every other case gets generous time limits, one
    // case after another, so a loaded 2-core machine cannot turn a slow reply into smtp_timeout.
    const tarpitEngine = engineFor(world, { ...base, smtpBudgetMs: 1500, smtpCommandTimeoutMs: 1000, dnsTimeoutMs: 5000 });
    engine = engineFor(world, { ...base, smtpBudgetMs: 10_000, smtpCommandTimeoutMs: 5000, dnsTimeoutMs: 5000 });
    try {
      for (const c of lab.cases) {
        const v = await (c.behaviour.includes('tarpit') ? tarpitEngine : engine).verify(c.address);
        given.set(c.address, { risk: v.risk, reason: v.reason, retryAfterSeconds: v.checks.retryAfterSeconds as number | null | undefined });
      }
    } finally {
      await tarpitEngine.close();
    }
  }, 240_000);
  afterAll(async () => {
    await engine.close();
    await lab.stop();
  });

  it('has at least 40 labelled behaviours', () => {
    expect(new Set(lab.cases.map((c) => c.behaviour)).size).toBeGreaterThanOrEqual(40);
  });

  it('every case gets its expected risk', () => {
    const wrong = lab.cases.filter((c) => given.get(c.address)?.risk !== c.expected).map((c) => `${c.address} (${c.behaviour}): expected ${c.expected}, got ${JSON.stringify(given.get(c.address))}`);
    expect(wrong).toEqual([]);
  });

  it('no existing mailbox is called invalid', () => {
    expect(lab.cases.filter((c) => c.truth === 'exists' && given.get(c.address)?.risk === 'invalid')).toEqual([]);
  });

  it('every policy block is unknown, never invalid', () => {
    const blocks = lab.cases.filter((c) => c.policyBlock);
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    for (const c of blocks) expect({ address: c.address, risk: given.get(c.address)?.risk }).toEqual({ address: c.address, risk: 'unknown' });
  });

  it('every "user unknown" form of the named providers is invalid', () => {
    const forms = lab.cases.filter((c) => c.userUnknownOf && c.userUnknownOf !== 'any');
    expect(new Set(forms.map((c) => c.userUnknownOf))).toEqual(new Set(['google', 'microsoft', 'yahoo', 'apple', 'protonmail', 'zoho']));
    for (const c of forms) expect({ address: c.address, risk: given.get(c.address)?.risk }).toEqual({ address: c.address, risk: 'invalid' });
  });

  it('a 421 at connect is a rate limit with a retry hint; a 421 on the first MX moves on to the second', () => {
    expect(given.get('kim@busy-mx.com')).toEqual({ risk: 'unknown', reason: 'smtp_rate_limited', retryAfterSeconds: 900 });
    expect(given.get('kim@fallback-mx.com')).toMatchObject({ risk: 'safe', reason: 'deliverable' });
    expect(given.get('popular@gmail.com')).toMatchObject({ reason: 'smtp_rate_limited' }); // Gmail's "receiving mail at a rate": not greylisting
    expect(given.get('grey@acme-mail.com')).toMatchObject({ reason: 'greylisted', retryAfterSeconds: 300 });
  });

  it('no DATA was ever sent', () => {
    expect(lab.peers.reduce((n, p) => n + p.dataCommands, 0)).toBe(0);
  });
});
