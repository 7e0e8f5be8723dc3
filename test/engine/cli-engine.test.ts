import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import { openKeyStore } from '@verify-hub/engine';
import { register } from '../../cli/src/commands/engine';
import { cliBin } from '../setup/cli-bin';

/** `verify-hub engine keys create|list|revoke`, run through commander as the CLI runs them. */
describe('verify-hub engine keys', () => {
  const prefix = `test:engine-cli:${randomUUID()}:`;
  const saved = { ...process.env };
  let output = '';
  let redis: Redis;

  async function run(...args: string[]): Promise<string> {
    output = '';
    const program = new Command('verify-hub').exitOverride();
    register(program);
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output += String(chunk);
      return true;
    });
    try {
      await program.parseAsync(['node', 'verify-hub', ...args]);
    } finally {
      write.mockRestore();
    }
    return output;
  }

  beforeAll(() => {
    process.env.ENGINE_REDIS_PREFIX = prefix;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  afterAll(async () => {
    process.env = saved;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('creates a key printed once, lists it without the secret, revokes it at once', async () => {
    const created = await run('engine', 'keys', 'create', '--name', 'HubSpot sync', '--account', 'acme', '--rate', '5', '--quota', '2000');
    const key = created.split('\n')[0]!;
    expect(key).toMatch(/^vh_[A-Za-z0-9_-]{43}$/);
    expect(created).toContain('5 requests/s, 2000 verifications/month');
    expect(created).toContain('only time the key is shown');

    const listed = await run('engine', 'keys', 'list', '--json');
    expect(listed).not.toContain(key);
    const [record] = JSON.parse(listed) as { id: string; name: string; revokedAt: string | null }[];
    expect(record).toMatchObject({ name: 'HubSpot sync', revokedAt: null });

    const { store, close } = await openKeyStore(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
    try {
      expect(await store.authenticate(key)).toMatchObject({ account: 'acme' });
      expect(await store.accountLimits('acme')).toEqual({ ratePerSecond: 5, monthlyQuota: 2000 });
      expect(await run('engine', 'keys', 'revoke', record!.id)).toContain('Revoked "HubSpot sync"');
      expect(await store.authenticate(key)).toBeNull();
    } finally {
      await close();
    }
    expect(await run('engine', 'keys', 'list')).toMatch(/revoked \d{4}-.* used \d{4}-\d\d-\d\dT.* HubSpot sync/);
  });

  it('names the bad argument', async () => {
    await expect(run('engine', 'keys', 'create', '--name', 'x', '--rate', 'fast')).rejects.toThrow(/^--rate: /);
    await expect(run('engine', 'keys', 'revoke', 'no-such-id')).rejects.toThrow(/^id: no key/);
  });
});

describe('verify-hub engine (the server)', () => {
  it('a too-short ENGINE_API_KEY stops it with a message naming the variable (a compose file must not leave it hanging)', async () => {
    const child = spawn(process.execPath, [cliBin(), 'engine', '--port', '0'], {
      env: { ...process.env, ENGINE_API_KEY: 'change-me-engine-key', ENGINE_REDIS_PREFIX: `test:engine-cli:${randomUUID()}:` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/ENGINE_API_KEY: must be 24 to 256 printable characters/);
    expect(stderr).not.toContain('change-me-engine-key');
  }, 60_000);
});
