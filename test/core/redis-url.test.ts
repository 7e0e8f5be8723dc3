import { describeRedisTarget, loadConfig, parseRedisUrl } from '@verify-hub/core';

describe('REDIS_URL forms', () => {
  it('names one server, a cluster or a Sentinel-watched master', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6379/2')).toEqual({ kind: 'server', url: 'redis://127.0.0.1:6379/2' });
    expect(parseRedisUrl('redis+cluster://h1:7000,h2:7001,[::1]:7002')).toEqual({
      kind: 'cluster',
      tls: false,
      nodes: [
        { host: 'h1', port: 7000 },
        { host: 'h2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@h1:7000')).toEqual({ kind: 'cluster', tls: true, username: 'app', password: 'p@ss', nodes: [{ host: 'h1', port: 7000 }] });
    expect(parseRedisUrl('redis+sentinel://:pw@s1,s2:26380/mymaster/3')).toEqual({
      kind: 'sentinel',
      tls: false,
      password: 'pw',
      masterName: 'mymaster',
      db: 3,
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
    });
  });

  it('rejects malformed forms with a message that names the problem and never the password', () => {
    expect(() => parseRedisUrl('localhost:6379')).toThrow(/must be a URL/);
    expect(() => parseRedisUrl('redis+cluster://')).toThrow(/names no cluster node/);
    expect(() => parseRedisUrl('redis+cluster://h1:99999')).toThrow(/"h1:99999" that is not host:port/);
    expect(() => parseRedisUrl('redis+cluster://h1:7000/1')).toThrow(/only database 0/);
    expect(() => parseRedisUrl('redis+sentinel://s1:26379')).toThrow(/master name/);
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://:hunter2@s1:26379' })).toThrow(/^REDIS_URL: needs the master name/);
    try {
      loadConfig({ REDIS_URL: 'redis+sentinel://:hunter2@s1:26379' });
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
    expect(loadConfig({ REDIS_URL: 'redis+cluster://h1:7000,h2:7001' }).REDIS_URL).toBe('redis+cluster://h1:7000,h2:7001');
  });

  it('describes where it points without credentials', () => {
    expect(describeRedisTarget(parseRedisUrl('redis://:secret@db:6380'))).toBe('db:6380');
    expect(describeRedisTarget(parseRedisUrl('redis+cluster://u:secret@h1:7000,h2:7001'))).toBe('cluster h1:7000,h2:7001');
    expect(describeRedisTarget(parseRedisUrl('redis+sentinel://s1:26379/main'))).toBe('sentinels s1:26379 (master main)');
  });
});
