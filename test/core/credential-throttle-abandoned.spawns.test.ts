import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CredentialThrottle, type CredentialAttempt } from '@verify-hub/core';
import { throttleRedis } from './throttle-redis';
import { TS_CHILD_ARGS } from '../setup/ts-child';

/**
 * Which credential checks count as under way when processes stall or die: a second process (the
 * fixture) holds checks while the test stops and resumes it.
 */
describe('the credential throttle across processes', () => {
  const shared = throttleRedis('throttle-abandoned');
  const { prefix } = shared;

  it('counts the checks really under way: a slow check stays counted while its process lives; a stalled process\'s are abandoned, and their late reports free no extra place', async () => {
    // A process that dies or stalls mid-check stops renewing its checks; they stop counting after
    // abandonedAfterMs. A live one renews them however long they take: on a starved hub, checks that
    // stopped counting after 30 s while still being compared let 19 of 200 guesses be compared. The
    // older count (one fixed window for every check of an address) restarted at zero when that time ran
    // out, and the late reports drove it below zero (122 of 200 compared).
    const abandonedAfterMs = 2_000;
    const throttle = new CredentialThrottle(shared.redis, prefix, { perAddress: 3, busyAfterMs: 0, abandonedAfterMs });
    const address = '192.0.2.44';
    const attempt = () => throttle.attempt(address, 'admin-token', 'test');
    const holder = spawn(process.execPath, [...TS_CHILD_ARGS, join(__dirname, 'fixtures', 'throttle-checks-process.ts'), process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix, address, String(abandonedAfterMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: holder.stdout! });
    const said = (line: string) => new Promise<void>((resolve) => lines.on('line', (l) => l === line && resolve()));
    try {
      const held = said('held');
      await Promise.race([held, once(holder, 'exit').then(() => Promise.reject(new Error('the holding process ended')))]);
      // Alive and holding: still counted well past abandonedAfterMs.
      await new Promise((resolve) => setTimeout(resolve, 2 * abandonedAfterMs));
      expect(await attempt()).toMatchObject({ allowed: false, refused: 'busy' });
      // Stalled: its three are abandoned, and the next check goes in (a busy refusal counts nothing).
      holder.kill('SIGSTOP');
      let fourth = await attempt();
      while (!fourth.allowed) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        fourth = await attempt();
      }
      // It goes on and reports the three, too late to be counted: the fourth is still under way, so two more places, not five.
      holder.kill('SIGCONT');
      const reported = said('reported');
      holder.stdin!.write('report\n');
      await reported;
      const next = [await attempt(), await attempt(), await attempt()];
      expect(next.map((a) => a.allowed)).toEqual([true, true, false]);
      expect(next[2]).toMatchObject({ refused: 'busy' });
      for (const admitted of [fourth, next[0], next[1]]) await (admitted as CredentialAttempt).succeeded();
    } finally {
      holder.kill('SIGCONT');
      holder.kill('SIGKILL');
      lines.close();
    }
  }, 60_000);
});
