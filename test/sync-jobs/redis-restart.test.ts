import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, redisAnswers } from '../setup/redis';
import { runCrashScenario } from './crash-harness';

/** A private redis-server persisting with AOF (fsync on every write, so a kill loses nothing acknowledged). */
class PrivateRedis {
  private child?: ChildProcess;
  readonly dir = mkdtempSync(join(tmpdir(), 'vh-redis-'));
  constructor(readonly port: number) {}
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start(): Promise<void> {
    this.child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(this.port), '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
    const end = Date.now() + 10_000;
    while (!(await redisAnswers(this.url))) {
      if (Date.now() > end) throw new Error(`redis-server did not start on port ${this.port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

describe('Redis restarted mid-run', () => {
  it('a redis-server killed and restarted (AOF) mid-run: the run completes by itself, every contact written once, nothing lost', async () => {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    const lines: string[] = [];
    try {
      const f = await runCrashScenario({
        contacts: 2000,
        kills: 0,
        workers: 2,
        redisUrl: redis.url,
        timeoutMs: 100_000,
        log: (l) => lines.push(l),
        midRun: {
          atShare: 0.4,
          action: async () => {
            await redis.kill();
            await redis.start();
          },
        },
      });
      const summary = JSON.stringify({ ...f, log: lines.slice(-10) });
      expect({ status: f.status, summary }).toEqual({ status: 'completed', summary });
      expect({ lost: f.lost, duplicates: f.duplicates, writtenOnce: f.writtenOnce }).toEqual({ lost: 0, duplicates: 0, writtenOnce: 2000 });
      expect(f.counters).toMatchObject({ pulled: 2000, failed: 0 });
      expect(lines.some((l) => l.startsWith('mid-run action'))).toBe(true);
      // A verification answered while Redis was down cannot be stored and is bought again (at most what was
      // in flight: 2 workers x 2 chunks x 5); nothing else is. The credits count each answer received once,
      // even a MULTI that ioredis sent again after reconnecting.
      expect(f.boughtTwice).toBeLessThanOrEqual(2 * 2 * 5);
      expect({ credits: f.credits, storedTwice: f.storedTwice, summary }).toEqual({ credits: f.bill - f.boughtTwice, storedTwice: 0, summary });
    } finally {
      await redis.stop();
    }
  }, 115_000);
});
