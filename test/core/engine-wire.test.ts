import { FIELD_SET_A_SCORES, parseStoredVerification, readEngineAnswer, toWireResponse, VerificationSchema, type Verification, type WireReading } from '@verify-hub/core';

const NOW = new Date('2026-11-21T10:00:00Z');
const read = (body: unknown): WireReading => readEngineAnswer(body, 'Ann@Example.com', 'Ann@example.com', NOW);
const map = (body: unknown): Verification => {
  const r = read(body);
  if (!r.ok) throw new Error(`refused: ${r.problem}`);
  return r.verification;
};

/** ENGINE-API.md §2.1, field set B, with the example values it shows. */
const PUBLISHED_B = {
  email: 'ann@example.com',
  score: 87,
  risk: 'safe',
  syntax_valid: true,
  mx_found: true,
  smtp_check: 'deliverable',
  is_disposable: false,
  is_role_account: false,
  is_catch_all: false,
  is_free_provider: true,
  spam_trap_risk: 'low',
  deliverability: {
    grade: 'A',
    score: 92.5,
    authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' },
    blacklist: { listed: false, listed_count: 0, total_checks: 10 },
  },
};

describe('field set B as published', () => {
  it('reads every field by its published name into the exact Verification', () => {
    const r = read(PUBLISHED_B);
    expect(r.ok && r.warnings).toEqual([]);
    expect(map(PUBLISHED_B)).toEqual({
      email: 'Ann@Example.com',
      normalized: 'Ann@example.com',
      score: 87,
      risk: 'safe',
      reason: 'deliverable',
      checks: {
        syntax: true,
        mx: true,
        smtp: true,
        smtpCheck: 'deliverable',
        disposable: false,
        roleAccount: false,
        catchAll: false,
        freeProvider: true,
        spamTrapRisk: 'low',
      },
      deliverability: {
        grade: 'A',
        score: 92.5,
        authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' },
        blacklist: { listed: false, listedCount: 0, totalChecks: 10 },
      },
      checkedAt: NOW.toISOString(),
      billable: true,
    });
  });

  it('reads the flags of a disposable, role, catch-all address', () => {
    const v = map({ ...PUBLISHED_B, risk: 'risky', score: 20, smtp_check: 'catch_all', is_disposable: true, is_role_account: true, is_catch_all: true, is_free_provider: false });
    expect(v.checks).toMatchObject({ disposable: true, roleAccount: true, catchAll: true, freeProvider: false, smtp: true, smtpCheck: 'catch_all' });
    expect(v).toMatchObject({ risk: 'risky', score: 20, reason: 'disposable' });
  });

  it.each([
    ['deliverable', true],
    ['undeliverable', false],
    ['catch_all', true],
    ['mailbox_full', true],
    ['greylisted', null],
    ['blocked', null],
    ['timeout', null],
    ['not_checked', null],
  ] as const)('smtp_check %s -> smtp %s', (smtpCheck, smtp) => {
    expect(map({ ...PUBLISHED_B, smtp_check: smtpCheck }).checks).toMatchObject({ smtp, smtpCheck });
  });

  it('folds other engines\' words onto verify-hub\'s vocabularies', () => {
    const v = map({ ...PUBLISHED_B, smtp_check: 'Accept-All', spam_trap_risk: 'Moderate', deliverability: { authentication: { spf: 'softfail', dkim: 'present', dmarc: 'p_quarantine' } } });
    expect(v.checks).toMatchObject({ smtpCheck: 'catch_all', catchAll: false, spamTrapRisk: 'medium' });
    expect(v.deliverability?.authentication).toEqual({ spf: 'soft', dkim: 'found', dmarc: 'quarantine' });
  });

  it('keeps values never seen before as they came, without a warning or a lost verdict', () => {
    const r = read({ ...PUBLISHED_B, smtp_check: 'probably_ok', spam_trap_risk: 'elevated', deliverability: { grade: 'B+', score: 80, authentication: { spf: 'hardfail-ish', dkim: 'selector2', dmarc: 'p=reject; pct=50' } } });
    expect(r.ok && r.warnings).toEqual([]);
    const v = map({ ...PUBLISHED_B, smtp_check: 'probably_ok', spam_trap_risk: 'elevated', deliverability: { grade: 'B+', authentication: { spf: 'hardfail-ish', dkim: 'selector2', dmarc: 'p=reject; pct=50' } } });
    expect(v).toMatchObject({ risk: 'safe', score: 87 });
    expect(v.checks).toMatchObject({ smtpCheck: 'probably_ok', smtp: null, spamTrapRisk: 'elevated' });
    expect(v.deliverability).toEqual({
      grade: 'B+',
      score: null,
      authentication: { spf: 'hardfail-ish', dkim: 'selector2', dmarc: 'p=reject; pct=50' },
      blacklist: { listed: null, listedCount: null, totalChecks: null },
    });
  });

  it.each([
    [{ risk: 'invalid', mx_found: false }, 'no_mx'],
    [{ risk: 'invalid', syntax_valid: false }, 'syntax'],
    [{ risk: 'invalid', mx_found: true, smtp_check: 'undeliverable' }, 'mailbox_not_found'],
    [{ risk: 'invalid' }, 'undeliverable'],
    [{ risk: 'risky', is_catch_all: true }, 'catch_all'],
    [{ risk: 'risky', smtp_check: 'mailbox_full' }, 'mailbox_full'],
    [{ risk: 'risky', is_role_account: true }, 'role_account'],
    [{ risk: 'risky', spam_trap_risk: 'high' }, 'spam_trap'],
    [{ risk: 'risky' }, 'risky'],
    [{ risk: 'unknown', smtp_check: 'timeout' }, 'smtp_timeout'],
    [{ risk: 'unknown', smtp_check: 'greylisted' }, 'greylisted'],
    [{ risk: 'unknown', smtp_check: 'probably_ok' }, 'unknown'],
    [{ risk: 'safe' }, 'deliverable'],
  ] as const)('without a reason field, %j reads as reason %s', (body, reason) => {
    expect(map({ score: 50, ...body }).reason).toBe(reason);
  });

  it('never bills an unknown, even if the engine says billable', () => {
    expect(map({ score: 0, risk: 'unknown', billable: true }).billable).toBe(false);
  });
  it('honours billable=false from the engine', () => {
    expect(map({ score: 90, risk: 'safe', billable: false }).billable).toBe(false);
  });
  it('folds a reason to snake_case and takes checked_at', () => {
    const v = map({ score: 5, risk: 'invalid', reason: 'Mailbox Not-Found', checked_at: '2026-11-20T08:00:00+01:00' });
    expect(v).toMatchObject({ reason: 'mailbox_not_found', checkedAt: '2026-11-20T07:00:00.000Z' });
  });
  it('accepts the risk in any letter case', () => {
    expect(map({ risk: 'RISKY', score: 40 }).risk).toBe('risky');
  });
});

describe('a check not made is null, never false', () => {
  it('an answer with only a verdict reports nothing about the checks', () => {
    const v = map({ risk: 'invalid', score: 0, reason: 'reserved_domain' });
    expect(v.checks).toEqual({ syntax: null, mx: null, smtp: null, smtpCheck: null, disposable: null, roleAccount: null, catchAll: null, freeProvider: null, spamTrapRisk: null });
    expect(v.deliverability).toBeUndefined();
  });
  it('deliverable=false from field set A is not "the server refused the mailbox"', () => {
    const v = map({ email: 'x@example.com', valid: true, deliverable: false, mx_found: false });
    expect(v).toMatchObject({ risk: 'invalid', reason: 'no_mx' });
    expect(v.checks.smtp).toBeNull();
    expect(v.checks.smtpCheck).toBeNull();
  });
  it('smtp_check not_checked with smtp_valid null stays undetermined', () => {
    expect(map({ ...PUBLISHED_B, risk: 'invalid', score: 0, smtp_check: 'not_checked', smtp_valid: null }).checks).toMatchObject({ smtp: null, smtpCheck: 'not_checked' });
  });
});

describe('field set A (no risk given)', () => {
  it.each([
    [{ valid: false }, 'invalid', 'undeliverable'],
    [{ valid: false, syntax_valid: false }, 'invalid', 'syntax'],
    [{ valid: false, mx_found: false }, 'invalid', 'no_mx'],
    [{ valid: true, mx_found: false }, 'invalid', 'no_mx'],
    [{ valid: true, deliverable: false }, 'invalid', 'mailbox_not_found'],
    [{ valid: true, smtp_valid: false }, 'invalid', 'mailbox_not_found'],
    [{ valid: true, deliverable: true, disposable: true }, 'risky', 'disposable'],
    [{ valid: true, deliverable: true, role_based: true }, 'risky', 'role_account'],
    [{ valid: true, deliverable: true, is_catch_all: true }, 'risky', 'catch_all'],
    [{ valid: true, deliverable: true, spam_trap_risk: 'high' }, 'risky', 'spam_trap'],
    [{ valid: true, deliverable: true }, 'safe', 'deliverable'],
    [{ valid: true, deliverable: null }, 'unknown', 'unknown'],
  ] as const)('%j -> %s (%s)', (body, risk, reason) => {
    const v = map(body);
    expect(v.risk).toBe(risk);
    expect(v.reason).toBe(reason);
    expect(v.score).toBe(FIELD_SET_A_SCORES[risk]);
    expect(v.billable).toBe(risk !== 'unknown');
  });

  it('reads the published names role_based and free_email', () => {
    const v = map({ email: 'info@gmail.com', valid: true, deliverable: true, score: 61, smtp_valid: true, mx_found: true, disposable: false, role_based: true, free_email: true });
    expect(v).toMatchObject({ risk: 'risky', reason: 'role_account', score: 61 });
    expect(v.checks).toEqual({ syntax: true, mx: true, smtp: true, smtpCheck: 'deliverable', disposable: false, roleAccount: true, catchAll: null, freeProvider: true, spamTrapRisk: null });
  });

  it('keeps names that are not published (role_account, spam_trap) as extra checks, never as the canonical flags', () => {
    const v = map({ valid: true, deliverable: true, role_account: true, free_provider: true, spam_trap: true });
    expect(v).toMatchObject({ risk: 'safe', reason: 'deliverable' });
    expect(v.checks).toMatchObject({ roleAccount: null, freeProvider: null, spamTrapRisk: null, role_account: true, free_provider: true, spamTrap: true });
  });
});

describe('both field sets', () => {
  it('B wins where both speak; A fills what B leaves out', () => {
    const v = map({ risk: 'safe', score: 97, valid: false, deliverable: false, disposable: true, is_disposable: false, smtp_valid: false, free_email: true, role_based: false });
    expect(v).toMatchObject({ risk: 'safe', score: 97 });
    expect(v.checks).toMatchObject({ disposable: false, smtp: false, smtpCheck: 'undeliverable', freeProvider: true, roleAccount: false });
  });
  it('smtp_check wins over smtp_valid', () => {
    expect(map({ risk: 'risky', score: 50, smtp_check: 'greylisted', smtp_valid: true }).checks).toMatchObject({ smtp: null, smtpCheck: 'greylisted' });
  });
});

describe('malformed optional parts are dropped with a warning naming the field; the verdict survives', () => {
  it.each([
    [{ score: '87' }, 'score', { score: FIELD_SET_A_SCORES.safe }],
    [{ score: 250 }, 'score', { score: FIELD_SET_A_SCORES.safe }],
    [{ is_disposable: 'no' }, 'is_disposable', {}],
    [{ deliverability: 'A+' }, 'deliverability', {}],
    [{ deliverability: { grade: 7, authentication: ['strict'], blacklist: { listed: 'no', listed_count: -1, total_checks: 10 } } }, 'deliverability.grade', {}],
    [{ smtp_check: 42 }, 'smtp_check', {}],
    [{ checked_at: 'yesterday' }, 'checked_at', {}],
    [{ catch_all_confidence: 95 }, 'catch_all_confidence', {}],
    [{ billable: 'yes' }, 'billable', {}],
  ] as const)('%j -> warning on %s', (patch, field, expected) => {
    const r = read({ ...PUBLISHED_B, ...patch });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings.map((w) => w.field)).toContain(field);
    expect(r.verification).toMatchObject({ risk: 'safe', score: 87, ...expected });
  });

  it('a bad deliverability block keeps what parses and names each bad part', () => {
    const r = read({ ...PUBLISHED_B, deliverability: { grade: 'C', score: 'high', authentication: { spf: true, dkim: 'found' }, blacklist: { listed: true, listed_count: 2.5, total_checks: 10 } } });
    expect(r.ok && r.warnings.map((w) => w.field).sort()).toEqual(['deliverability.authentication.spf', 'deliverability.blacklist.listed_count', 'deliverability.score']);
    expect(r.ok && r.verification.deliverability).toEqual({
      grade: 'C',
      score: null,
      authentication: { spf: null, dkim: 'found', dmarc: null },
      blacklist: { listed: true, listedCount: null, totalChecks: 10 },
    });
  });

  it.each([
    [{ catchAllConfidence: 'high' }, 'catchAllConfidence'],
    [{ catchAllConfidence: 2 }, 'catchAllConfidence'],
    [{ typoSuggestion: 5 }, 'typoSuggestion'],
    [{ smtpCheck: '' }, 'smtpCheck'],
    [{ syntax: 'x' }, 'syntax'],
  ] as const)('a field named like one of verify-hub\'s checks (%j) is dropped with a warning; the verdict and the published checks stand', (patch, field) => {
    const r = read({ ...PUBLISHED_B, catch_all_confidence: 0.4, ...patch });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings.map((w) => w.field)).toEqual([field]);
    expect(r.verification).toMatchObject({ risk: 'safe', score: 87 });
    expect(r.verification.checks).toMatchObject({ syntax: true, smtpCheck: 'deliverable', catchAllConfidence: 0.4 });
    expect(r.verification.checks).not.toHaveProperty('typoSuggestion');
    expect(VerificationSchema.safeParse(r.verification).success).toBe(true);
  });

  it('keeps unknown extra fields, camel-cased, as further checks', () => {
    const v = map({ ...PUBLISHED_B, provider: 'google', smtp_reply: { code: 250 }, sub_addressing: false });
    expect(v.checks).toMatchObject({ provider: 'google', smtpReply: { code: 250 }, subAddressing: false });
  });
});

describe('answers that are not a result', () => {
  it.each([
    [{}],
    [{ score: 50 }],
    [{ risk: 'excellent', score: 50 }],
    [{ valid: 'yes' }],
    [[{ risk: 'safe' }]],
    ['safe'],
    [null],
  ])('refuses %j as engine_bad_response material', (body) => {
    const r = read(body);
    expect(r.ok).toBe(false);
  });
  it('names the field when the only verdict is malformed', () => {
    const r = read({ risk: 'excellent', score: 50 });
    expect(!r.ok && r.warnings.map((w) => w.field)).toEqual(['risk']);
  });
});

describe('toWireResponse', () => {
  it('writes every field of set B with the published types, set A\'s non-colliding fields and the extensions', () => {
    const v = map({ ...PUBLISHED_B, is_disposable: true, risk: 'risky', score: 20, reason: 'disposable', catch_all_confidence: 0.1, did_you_mean: 'ann@gmail.com' });
    const wire = toWireResponse(v);
    expect(wire).toEqual({
      email: 'Ann@Example.com',
      score: 20,
      risk: 'risky',
      syntax_valid: true,
      mx_found: true,
      smtp_check: 'deliverable',
      is_disposable: true,
      is_role_account: false,
      is_catch_all: false,
      is_free_provider: true,
      spam_trap_risk: 'low',
      deliverability: { grade: 'A', score: 92.5, authentication: { spf: 'strict', dkim: 'found', dmarc: 'reject' }, blacklist: { listed: false, listed_count: 0, total_checks: 10 } },
      valid: true,
      deliverable: true,
      smtp_valid: true,
      disposable: true,
      role_based: false,
      free_email: true,
      reason: 'disposable',
      normalized: 'Ann@example.com',
      catch_all_confidence: 0.1,
      checked_at: NOW.toISOString(),
      billable: true,
      did_you_mean: 'ann@gmail.com',
    });
  });

  it('round-trips through readEngineAnswer', () => {
    const v = map({ ...PUBLISHED_B, risk: 'risky', score: 64, reason: 'role_account', is_role_account: true, gibberish: false, smtp_reply: { code: 250, enhanced: '2.1.5' } });
    const again = map(toWireResponse(v));
    expect(VerificationSchema.parse(again)).toEqual({ ...v, email: 'Ann@Example.com' });
  });

  it('says nothing was checked, not false, for a result with no checks', () => {
    const wire = toWireResponse(map({ risk: 'invalid', score: 0, reason: 'reserved_domain' }));
    expect(wire).toMatchObject({ smtp_check: null, smtp_valid: null, is_disposable: null, deliverable: false, valid: false });
    expect(wire.deliverability).toEqual({ grade: null, score: null, authentication: { spf: null, dkim: null, dmarc: null }, blacklist: { listed: null, listed_count: null, total_checks: null } });
  });
});

describe('results stored by an earlier verify-hub', () => {
  it('are read, not bought again: smtpCheck unknown, boolean authentication mapped where it can be', () => {
    const stored = {
      email: 'ann@example.com', normalized: 'ann@example.com', score: 92, risk: 'safe', reason: 'deliverable',
      checks: { syntax: true, mx: true, smtp: true, disposable: false, roleAccount: false, catchAll: false, freeProvider: false, spamTrapRisk: 'none' },
      deliverability: { grade: 'A', score: 95, authentication: { spf: true, dkim: false, dmarc: null }, blacklist: { listed: false, listedCount: 0, totalChecks: 10 } },
      checkedAt: '2026-11-01T00:00:00.000Z', billable: true,
    };
    const v = parseStoredVerification(stored);
    expect(v?.checks.smtpCheck).toBeNull();
    expect(v?.deliverability?.authentication).toEqual({ spf: null, dkim: 'missing', dmarc: null });
    expect(parseStoredVerification({ ...stored, risk: 'excellent' })).toBeUndefined();
  });
});
