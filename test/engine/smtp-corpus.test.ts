import type { Risk } from '@verify-hub/core';
import { classifyReply, parseReply, type LocalEngine, type ReplyClass } from '@verify-hub/engine';
import { loadCorpus, startCorpusWorld, type CorpusWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/**
 * The labelled corpus of real replies (engine/test-data/smtp-replies.json, issue 35): every reply through
 * the classifier, then through a loopback MX and the whole engine. The acceptance figures are asserted
 * as the issue states them.
 */
const corpus = loadCorpus();
const riskOf = (cls: ReplyClass): Risk => (cls === 'accepted' ? 'safe' : cls === 'mailbox_not_found' || cls === 'mailbox_disabled' ? 'invalid' : cls === 'mailbox_full' ? 'risky' : 'unknown');
const EXISTING = ['exists', 'full', 'rate_limited', 'greylisted'];

describe('the corpus', () => {
  it('holds at least 300 replies, each with a stage, a label, an expected verdict and a source', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    for (const e of corpus) {
      expect(e).toMatchObject({ stage: expect.stringMatching(/^(greeting|ehlo|mail|rcpt)$/), label: expect.any(String), expected: expect.stringMatching(/^(safe|risky|invalid|unknown)$/) });
      expect(e.reply).toMatch(/^[245]\d\d /);
      expect(Object.keys(e.source).length).toBeGreaterThan(0);
    }
    expect(new Set(corpus.map((e) => e.id)).size).toBe(corpus.length);
  });
});

describe('every corpus reply through the classifier', () => {
  const given = corpus.map((e) => ({ ...e, cls: classifyReply(parseReply([e.reply]), e.stage) }));

  it('gives the expected verdict', () => {
    expect(given.filter((e) => riskOf(e.cls) !== e.expected).map((e) => `${e.label} -> ${e.cls}: ${e.reply}`)).toEqual([]);
  });

  it('never calls an existing, full, rate-limited or policy-blocked mailbox invalid, nor anything answering before RCPT', () => {
    const wrong = given.filter((e) => (EXISTING.includes(e.label) || e.label === 'policy' || e.stage !== 'rcpt') && riskOf(e.cls) === 'invalid');
    expect(wrong.map((e) => e.reply)).toEqual([]);
  });

  it('calls at least 95 % of the missing mailboxes (5xx) invalid', () => {
    const missing = given.filter((e) => e.label === 'missing');
    expect(missing.filter((e) => riskOf(e.cls) === 'invalid').length / missing.length).toBeGreaterThanOrEqual(0.95);
  });

  it('leaves every temporary (4xx) reply unknown, except a full mailbox, which exists', () => {
    const later = given.filter((e) => e.reply.startsWith('4') && e.label !== 'full');
    expect(later.length).toBeGreaterThan(20);
    expect(later.filter((e) => riskOf(e.cls) !== 'unknown').map((e) => e.reply)).toEqual([]);
  });
});

describe('every corpus reply through a loopback MX and the engine', () => {
  let world: CorpusWorld;
  let engine: LocalEngine;
  const verdicts = new Map<string, { risk: Risk; reason: string }>();

  beforeAll(async () => {
    world = await startCorpusWorld(corpus);
    engine = engineFor(world as never, { smtpCommandTimeoutMs: 5000, smtpBudgetMs: 10_000, totalTimeoutMs: 20_000, dnsTimeoutMs: 5000, domainCacheTtlMs: 60_000 });
    const queue = [...corpus];
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        for (let e = queue.shift(); e; e = queue.shift()) {
          const v = await engine.verify(world.addressOf.get(e.id)!);
          verdicts.set(e.id, { risk: v.risk, reason: v.reason });
        }
      }),
    );
  }, 240_000);
  afterAll(async () => {
    await engine?.close();
    await world?.stop();
  });

  it('gives every reply its expected verdict', () => {
    expect(corpus.filter((e) => verdicts.get(e.id)?.risk !== e.expected).map((e) => `${e.label} [${e.stage}] ${e.reply} -> ${JSON.stringify(verdicts.get(e.id))}`)).toEqual([]);
  });

  it('a temporary "user unknown" is unknown with its own reason', () => {
    const temporary = corpus.filter((e) => e.label === 'missing_temporary');
    expect(temporary.length).toBeGreaterThan(0);
    for (const e of temporary) expect(verdicts.get(e.id)).toEqual({ risk: 'unknown', reason: 'smtp_user_unknown_temporary' });
  });

  it('no DATA was ever sent', () => {
    expect(world.peers.reduce((n, p) => n + p.dataCommands, 0)).toBe(0);
  });
});
