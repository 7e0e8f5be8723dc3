import { FakeEngine } from '../fakes/engine';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { EngineContract } from '../engine/openapi-contract';
import { cli } from './run-cli';

/**
 * `verify-hub verify <email>`: the local engine in this process (pointed at the loopback DNS and SMTP
 * peers: no test reaches the internet), or the engine at ENGINE_URL (the fake engine).
 */
describe('verify-hub verify', () => {
  const saved = { ...process.env };
  let world: MailWorld;
  const engine = new FakeEngine();

  beforeAll(async () => {
    [world] = await Promise.all([startMailWorld(), engine.start()]);
  });
  afterAll(async () => {
    process.env = saved;
    await Promise.all([world.stop(), engine.stop()]);
  });

  function useLocalEngine(): void {
    delete process.env.ENGINE_URL;
    delete process.env.ENGINE_API_KEY;
    process.env.ENGINE_DNS_SERVERS = world.dnsServer;
    process.env.ENGINE_SMTP_PORT = String(world.smtpPort);
  }

  function useFakeEngine(key = engine.apiKey): void {
    delete process.env.ENGINE_DNS_SERVERS;
    delete process.env.ENGINE_SMTP_PORT;
    process.env.ENGINE_URL = engine.url;
    process.env.ENGINE_API_KEY = key;
  }

  it('prints the verdict, the reason and each check in plain words, and the typo suggestion of the local engine', async () => {
    useLocalEngine();
    const r = await cli('verify', 'someone@gmaill.com');
    expect(r.code).toBe(0);
    // gmaill.com does not exist in the loopback DNS: invalid, and the engine's typo check suggests gmail.com.
    expect(r.out).toMatch(/^someone@gmaill\.com: INVALID, score \d+\/100$/m);
    expect(r.out).toContain('Invalid: its domain does not exist. Do not send to this address.');
    expect(r.out).toContain('did you mean someone@gmail.com?');
    expect(r.out).toMatch(/Reason code: domain_not_found/);
    expect(r.out).toMatch(/Address format\s+well-formed/);
    expect(r.out).toMatch(/Mail server \(MX record\)\s+none found/);
    // No SMTP conversation was held: "not checked", never "no".
    expect(r.out).toMatch(/Mailbox \(SMTP conversation\)\s+not checked/);
    expect(r.out).toMatch(/Domain accepts any address \(catch-all\)\s+not checked/);
    expect(r.out).toMatch(/Checked by the local engine \(in-process\)/);
  });

  it('an address without a typo gets no suggestion', async () => {
    useLocalEngine();
    const r = await cli('verify', 'ada@acme-mail.com');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ada@acme-mail\.com: (SAFE|RISKY|INVALID|UNKNOWN), score/m);
    expect(r.out).toMatch(/Mail server \(MX record\)\s+found/);
    expect(r.out).not.toMatch(/did you mean/i);
  });

  it('--json prints the published answer shape (openapi.yaml VerificationResult), did_you_mean included', async () => {
    useLocalEngine();
    const r = await cli('verify', 'someone@gmaill.com', '--json');
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.out) as Record<string, unknown>;
    expect(answer).toMatchObject({ email: 'someone@gmaill.com', risk: 'invalid', reason: 'domain_not_found', did_you_mean: 'gmail.com', smtp_check: 'not_checked' });
    // The same field order as the engine server's answers.
    expect(Object.keys(answer).slice(0, 3)).toEqual(['email', 'score', 'risk']);
    const problems = new EngineContract()
      .check('GET', '/api/v1/verify', 200, (name) => (name.toLowerCase() === 'content-type' ? 'application/json' : undefined), r.out)
      .filter((p) => !p.startsWith('header ')); // rate-limit headers belong to HTTP answers, not to this output
    expect(problems).toEqual([]);
  });

  it('uses the engine at ENGINE_URL, shows its suggestion, and never prints the key', async () => {
    useFakeEngine();
    engine.script('someone@gmial.com', { kind: 'result', risk: 'risky', reason: 'typo_domain', fields: { did_you_mean: 'someone@gmail.com' } });
    const r = await cli('verify', 'someone@gmial.com');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^someone@gmial\.com: RISKY, score 55\/100$/m);
    expect(r.out).toContain('did you mean someone@gmail.com?');
    expect(r.out).toMatch(/Mailbox \(SMTP conversation\)\s+the mail server accepts any address \(catch-all\)/);
    expect(r.out).toContain(`Checked by the engine at ${engine.url}`);
    expect(`${r.out}${r.err}`).not.toContain(engine.apiKey);
  });

  it('a refused key and a spent quota exit non-zero with a clear message that holds no key', async () => {
    useFakeEngine('vh_wrong_key_0123456789');
    const refused = await cli('verify', 'ada@example.com');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/verify-hub: engine rejected the API key/);
    expect(`${refused.out}${refused.err}`).not.toContain('vh_wrong_key_0123456789');

    useFakeEngine();
    engine.script('quota@example.com', { kind: 'quota', resetInMs: 3_600_000 });
    const spent = await cli('verify', 'quota@example.com');
    expect(spent.code).toBe(1);
    expect(spent.err).toMatch(/verify-hub: engine quota exhausted until .*: buy a credit pack or upgrade the plan/);
    expect(`${spent.out}${spent.err}`).not.toContain(engine.apiKey);
  });

  it('a missing or empty address is a usage error (exit 2) naming the argument', async () => {
    useFakeEngine();
    const before = engine.requests.length;
    expect(await cli('verify')).toMatchObject({ code: 2, err: expect.stringMatching(/missing required argument 'email'/) });
    expect(await cli('verify', '')).toMatchObject({ code: 2, err: expect.stringMatching(/verify-hub: email: is empty/) });
    expect(await cli('verify', '   ')).toMatchObject({ code: 2, err: expect.stringMatching(/verify-hub: email: is empty/) });
    expect(engine.requests.length).toBe(before);
  });
});
