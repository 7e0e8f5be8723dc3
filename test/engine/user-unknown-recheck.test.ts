import Redis from 'ioredis';
import { startMailWorld, type MailWorld } from '../fakes/mail-peers';
import { engineFor } from './helpers';

/**
 * A temporary "user unknown" (issue 35): a 4xx naming the recipient is unknown (not billed) and re-checked
 * soon; refused the same way on a re-check hours later, the mailbox is invalid. The clock is the engine's
 * `now` option, so "hours later" needs no waiting.
 */
describe('temporary "user unknown"', () => {
  let world: MailWorld;
  const HOUR = 3_600_000;
  const start = Date.parse('2026-11-27T09:00:00Z');

  beforeAll(async () => {
    world = await startMailWorld();
    const refusal = { code: 450, message: '4.1.1 <gone@acme-mail.com>: Recipient address rejected: User unknown in virtual alias table' };
    world.smtp.script('gone@acme-mail.com', refusal).script('back@acme-mail.com', { ...refusal, message: refusal.message.replace('gone', 'back') });
    world.smtp.script('sender@acme-mail.com', 'accept');
  });
  afterAll(async () => {
    await world.stop();
  });

  it('is unknown with its own reason at first and soon after, invalid when refused so again hours later', async () => {
    let clock = start;
    const engine = engineFor(world, { now: () => new Date(clock) });
    const first = await engine.verify('gone@acme-mail.com');
    expect(first).toMatchObject({ risk: 'unknown', reason: 'smtp_user_unknown_temporary', billable: false, checks: { smtpCheck: 'temporary_failure', retryAfterSeconds: 1800 } });
    clock = start + 30 * 60_000;
    expect(await engine.verify('gone@acme-mail.com')).toMatchObject({ risk: 'unknown', reason: 'smtp_user_unknown_temporary' });
    clock = start + 2.5 * HOUR;
    expect(await engine.verify('gone@acme-mail.com')).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found', billable: true, checks: { smtp: false, smtpCheck: 'undeliverable' } });
    await engine.close();
  });

  it('an accepted answer in between forgets the first refusal', async () => {
    let clock = start;
    const engine = engineFor(world, { now: () => new Date(clock) });
    expect(await engine.verify('back@acme-mail.com')).toMatchObject({ reason: 'smtp_user_unknown_temporary' });
    world.smtp.script('back@acme-mail.com', 'accept');
    clock = start + HOUR;
    expect(await engine.verify('back@acme-mail.com')).toMatchObject({ risk: 'safe' });
    world.smtp.script('back@acme-mail.com', { code: 450, message: '4.1.1 <back@acme-mail.com>: Recipient address rejected: User unknown in virtual alias table' });
    clock = start + 3 * HOUR;
    expect(await engine.verify('back@acme-mail.com')).toMatchObject({ risk: 'unknown', reason: 'smtp_user_unknown_temporary' });
    await engine.close();
  });

  it('is remembered in Redis across engine processes (shared limits, or a Redis given by the hub)', async () => {
    const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    const prefix = `test:uu:${process.pid}:${Date.now()}:`;
    try {
      world.smtp.script('shared@acme-mail.com', { code: 450, message: '4.1.1 <shared@acme-mail.com>: Recipient address rejected: User unknown in virtual alias table' });
      const one = engineFor(world, { sharedLimits: { redis, prefix }, now: () => new Date(start) });
      expect(await one.verify('shared@acme-mail.com')).toMatchObject({ reason: 'smtp_user_unknown_temporary' });
      await one.close();
      // A hub's worker: an in-process engine without shared limits, given the pipeline's Redis (cli pipeline-from-config).
      const other = engineFor(world, { now: () => new Date(start + 2 * HOUR) });
      other.shareRefusals(redis, prefix);
      expect(await other.verify('shared@acme-mail.com')).toMatchObject({ risk: 'invalid', reason: 'mailbox_not_found' });
      await other.close();
    } finally {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  it('a MAIL FROM refused with "user unknown" is about our sender: never this reason', async () => {
    const sender = await startMailWorld({ rejectSender: { code: 450, message: '4.1.1 <probe@verifier.acme-tools.com>: Sender address rejected: User unknown' } });
    try {
      const v = await engineFor(sender).verify('anyone@acme-mail.com');
      expect(v.risk).toBe('unknown');
      expect(v.reason).not.toBe('smtp_user_unknown_temporary');
    } finally {
      await sender.stop();
    }
  });
});
