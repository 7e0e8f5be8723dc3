import { randomUUID } from 'node:crypto';
import { closeRedis, runScript } from '@verify-hub/core';
import { createRedis } from '@verify-hub/sync-jobs';

/** Real Redis; each script's text is new (a comment with a fresh id), so no other suite has loaded it. */
describe('runScript: a Lua script by its SHA1, its text sent only where Redis lacks it', () => {
  // Made in a hook, not while jest collects the tests: the quick loop collects a bundle's suites before it runs any.
  let redis: ReturnType<typeof createRedis>;
  beforeAll(() => {
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  const key = `vhtest:redis-script:${randomUUID()}`;
  afterAll(async () => {
    await redis.del(key);
    await closeRedis(redis);
  });

  it('sends the text once (Redis answered NOSCRIPT), then the SHA1 alone, with the script\'s answer each time', async () => {
    const lua = `-- ${randomUUID()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;
    const evalsha = jest.spyOn(redis, 'evalsha');
    const evalText = jest.spyOn(redis, 'eval');
    try {
      expect(await runScript(redis, lua, 1, key, 5)).toBe(5);
      expect({ evalsha: evalsha.mock.calls.length, eval: evalText.mock.calls.length }).toEqual({ evalsha: 1, eval: 1 });
      expect(await runScript(redis, lua, 1, key, 2)).toBe(7);
      expect(await runScript(redis, lua, 1, key, 1)).toBe(8);
      expect({ evalsha: evalsha.mock.calls.length, eval: evalText.mock.calls.length }).toEqual({ evalsha: 3, eval: 1 });
      expect(evalsha.mock.calls[2][0]).toMatch(/^[0-9a-f]{40}$/);
    } finally {
      evalsha.mockRestore();
      evalText.mockRestore();
    }
  });

  it('a script that fails gives its own error, and is not sent again as text', async () => {
    const lua = `-- ${randomUUID()}\nreturn redis.error_reply('QUOTA the run is over its cap')`;
    await expect(runScript(redis, lua, 0)).rejects.toThrow('QUOTA the run is over its cap');
    const evalText = jest.spyOn(redis, 'eval');
    try {
      await expect(runScript(redis, lua, 0)).rejects.toThrow('QUOTA the run is over its cap');
      expect(evalText).not.toHaveBeenCalled();
    } finally {
      evalText.mockRestore();
    }
  });
});
