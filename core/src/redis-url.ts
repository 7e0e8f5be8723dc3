/**
 * REDIS_URL's three forms, parsed in one place (config validation and the client factory both use it):
 * - `redis://host:port/db` or `rediss://…` — one server;
 * - `redis+cluster://host1:7000,host2:7001` (or `rediss+cluster://`) — a Redis Cluster, any reachable nodes as seeds;
 * - `redis+sentinel://host1:26379,host2:26379/<master-name>` (or `rediss+sentinel://`) — Sentinel finds the master.
 * User and password (URL-encoded) apply to the data nodes, as in `redis://user:pass@…`.
 */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: RedisNode[]; tls: boolean; username?: string; password?: string }
  | { kind: 'sentinel'; sentinels: RedisNode[]; masterName: string; tls: boolean; username?: string; password?: string; db?: number };

export interface RedisNode {
  host: string;
  port: number;
}

const FORMS = 'redis://, rediss://, redis+cluster://h1:p1,h2:p2 or redis+sentinel://h1:p1,h2:p2/<master-name>';
const SCHEME = /^(rediss?)(?:\+(cluster|sentinel))?:\/\/(.*)$/;

/** The connection REDIS_URL names, or an Error saying what is wrong with it (never repeating a password). */
export function parseRedisUrl(url: string): RedisTarget {
  const match = SCHEME.exec(url.trim());
  if (!match) throw new Error(`must be a URL (${FORMS})`);
  const [, scheme, topology, rest] = match as unknown as [string, 'redis' | 'rediss', 'cluster' | 'sentinel' | undefined, string];
  if (!topology) {
    try {
      new URL(url);
    } catch {
      throw new Error(`must be a URL (${FORMS})`);
    }
    return { kind: 'server', url };
  }
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? rest.slice(0, at) : '';
  const [hostList = '', ...pathParts] = (at >= 0 ? rest.slice(at + 1) : rest).split('?')[0]!.split('/');
  const nodes = hostList.split(',').filter(Boolean).map((node) => parseNode(node, topology === 'sentinel' ? 26379 : 6379));
  if (nodes.length === 0) throw new Error(`names no ${topology === 'cluster' ? 'cluster node' : 'sentinel'} (host:port, comma-separated)`);
  const [user, pass] = credentials ? splitCredentials(credentials) : [undefined, undefined];
  const auth = { ...(user ? { username: user } : {}), ...(pass ? { password: pass } : {}) };
  const tls = scheme === 'rediss';
  if (topology === 'cluster') {
    if (pathParts.some(Boolean)) throw new Error('a cluster URL takes no path: a Redis Cluster has only database 0');
    return { kind: 'cluster', nodes, tls, ...auth };
  }
  const [masterName, db] = pathParts;
  if (!masterName) throw new Error('needs the master name after the sentinels: redis+sentinel://host:26379/<master-name>');
  if (db !== undefined && !/^\d+$/.test(db)) throw new Error('database after the master name must be a number');
  return { kind: 'sentinel', sentinels: nodes, masterName: decodeURIComponent(masterName), tls, ...auth, ...(db ? { db: Number(db) } : {}) };
}

function parseNode(node: string, defaultPort: number): RedisNode {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(node);
  const port = m?.[2] === undefined ? defaultPort : Number(m[2]);
  if (!m || port < 1 || port > 65535) throw new Error(`has a node "${node}" that is not host:port`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function splitCredentials(credentials: string): [string | undefined, string | undefined] {
  const colon = credentials.indexOf(':');
  const decode = (s: string) => (s ? decodeURIComponent(s) : undefined);
  return colon < 0 ? [decode(credentials), undefined] : [decode(credentials.slice(0, colon)), decode(credentials.slice(colon + 1))];
}

/** Where REDIS_URL points, for messages: hosts and ports only, never credentials. */
export function describeRedisTarget(target: RedisTarget): string {
  if (target.kind === 'server') {
    const u = new URL(target.url);
    return `${u.hostname || '127.0.0.1'}:${u.port || 6379}`;
  }
  const nodes = (target.kind === 'cluster' ? target.nodes : target.sentinels).map((n) => `${n.host}:${n.port}`).join(',');
  return target.kind === 'cluster' ? `cluster ${nodes}` : `sentinels ${nodes} (master ${target.masterName})`;
}
