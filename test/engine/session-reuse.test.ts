import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { until } from '../setup/until';
import { engineFor } from './helpers';

/**
 * Timeouts far above any answer's (engineFor's are short, for the timeout tests): on a fresh clone with a
 * core kept busy the 400 ms command timeout ran out and an address came back unknown. Nothing here times out.
 */
const PATIENT = { smtpConnectTimeoutMs: 10_000, smtpCommandTimeoutMs: 10_000, totalTimeoutMs: 30_000 };

/** One SMTP session serves several addresses of one mail server: RSET between, QUIT at the end. */
describe('SMTP session reuse', () => {
  let world: MailWorld;
  /** Conversations opened since the last clear (a late QUIT of an earlier test's session is left out). */
  const conversations = () => world.smtp.commandNames().filter((c) => c[0] === 'EHLO');

  beforeAll(async () => {
    world = await startMailWorld();
    for (let i = 0; i < 6; i++) world.smtp.script(`p${i}@acme-mail.com`, 'accept');
  });
  afterAll(async () => {
    await world.stop();
  });

  it('several addresses of a domain, one after another, share one session; the catch-all probe is sent once; close() ends it with QUIT', async () => {
    world.smtp.connections.clear();
    const engine = engineFor(world, { ...PATIENT, smtpSessionIdleMs: 5000, domainCacheTtlMs: 60_000, randomToken: () => 'once' });
    const verdicts = [];
    for (const a of ['p0', 'p1', 'nobody', 'p2']) verdicts.push((await engine.verify(`${a}@acme-mail.com`)).risk);
    expect(verdicts).toEqual(['safe', 'safe', 'invalid', 'safe']);
    await until(() => conversations()[0]?.filter((c) => c === 'RSET').length === 4, 10_000, 'the last RSET');
    expect(conversations()).toHaveLength(1);
    expect(conversations()[0]).toEqual(['EHLO', 'STARTTLS', 'EHLO', 'MAIL', 'RCPT', 'RCPT', 'RSET', 'MAIL', 'RCPT', 'RSET', 'MAIL', 'RCPT', 'RSET', 'MAIL', 'RCPT', 'RSET']);
    await engine.close();
    await until(() => conversations()[0]?.at(-1) === 'QUIT', 10_000, 'QUIT after close()');
    expect(world.smtp.dataCommands).toBe(0);
  });

  it('a session carries at most maxRcptPerSession RCPTs, then ends with QUIT', async () => {
    world.smtp.connections.clear();
    const engine = engineFor(world, { ...PATIENT, smtpSessionIdleMs: 5000, maxRcptPerSession: 2, catchAllProbe: false });
    for (let i = 0; i < 6; i++) expect((await engine.verify(`p${i}@acme-mail.com`)).risk).toBe('safe');
    await engine.close();
    expect(conversations()).toHaveLength(3);
    for (const commands of conversations()) expect(commands.filter((c) => c === 'RCPT')).toHaveLength(2);
  });

  it('a server that allows fewer recipients per session than the engine: "452 4.5.3 Too many recipients" starts a fresh session, never a verdict', async () => {
    const strict = await startMailWorld({ maxRcptPerSession: 2 });
    try {
      for (let i = 0; i < 6; i++) strict.smtp.script(`p${i}@acme-mail.com`, 'accept');
      const engine = engineFor(strict, { ...PATIENT, smtpSessionIdleMs: 5000, maxRcptPerSession: 20, catchAllProbe: false });
      const verdicts = [];
      for (let i = 0; i < 6; i++) verdicts.push((await engine.verify(`p${i}@acme-mail.com`)).reason);
      expect(verdicts).toEqual(Array(6).fill('deliverable'));
      await engine.close();
      expect(strict.smtp.connections.size).toBeGreaterThanOrEqual(3);
    } finally {
      await strict.stop();
    }
  });

  it('a session the server closed while idle is replaced, and the verdict is unchanged', async () => {
    world.smtp.connections.clear();
    const engine = engineFor(world, { ...PATIENT, smtpSessionIdleMs: 5000, catchAllProbe: false });
    expect((await engine.verify('p0@acme-mail.com')).risk).toBe('safe');
    await until(() => conversations()[0]?.at(-1) === 'RSET', 10_000, 'the session parked');
    world.smtp.dropAll();
    expect(await engine.verify('p1@acme-mail.com')).toMatchObject({ risk: 'safe', reason: 'deliverable' });
    expect(await engine.verify('nobody@acme-mail.com')).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found' });
    await engine.close();
    expect(conversations()).toHaveLength(2);
  });
});
