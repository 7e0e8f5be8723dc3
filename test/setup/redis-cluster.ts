import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAndWait } from './redis';
import { until } from './until';

/** Whether redis-server and redis-cli are installed (the cluster tests need both). */
export function haveRedisBinaries(): boolean {
  return ['redis-server', 'redis-cli'].every((bin) => spawnSync(bin, ['--version']).status === 0);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A loopback port whose cluster bus port (port + 10000) is free too: from `first` up when given (a bench's own ports), else at random. */
async function clusterPort(taken: Set<number>, first?: number): Promise<number> {
  for (let next = first ?? 0; ; next++) {
    const port = first === undefined ? 20000 + Math.floor(Math.random() * 30000) : next;
    if (!taken.has(port) && (await portFree(port)) && (await portFree(port + 10000))) return port;
  }
}

/** One redis-cli command to the node on `port`; its output. */
export function ask(port: number, ...args: string[]): string {
  return spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout ?? '';
}

export interface LocalCluster {
  /** `redis+cluster://…` naming every node. */
  url: string;
  ports: number[];
  /** The master serving `key`'s slot now. */
  masterOf(key: string): number;
  /** A graceful `CLUSTER FAILOVER` of `master` to one of its replicas; resolves once the replica is master and the cluster is ok. */
  failover(master: number): Promise<number>;
  /** Kills every redis-server and resolves once each has exited (a jest worker waits for none at its end). */
  stop(): Promise<void>;
}

/** A Redis Cluster of `masters` masters with `replicas` replicas each, on loopback ports (from `firstPort` up when given), in a temp dir. */
export async function startRedisCluster(masters = 3, replicas = 1, firstPort?: number): Promise<LocalCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'vh-redis-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters * (1 + replicas); i++) {
    const port = await clusterPort(taken, firstPort);
    taken.add(port);
    ports.push(port);
  }
  const processes: ChildProcess[] = ports.map((port) =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '3000', '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
  );
  const stop = async () => {
    await killAndWait(processes);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(() => ports.every((port) => ask(port, 'PING').trim() === 'PONG'), 20_000, 'the cluster nodes to answer');
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(() => clusterReady(ports, masters * replicas), 60_000, 'cluster_state:ok on every node with replicas in sync');
  } catch (error) {
    await stop();
    throw error;
  }
  const masterOf = (key: string): number => {
    const slot = Number(ask(ports[0]!, 'CLUSTER', 'KEYSLOT', key).trim());
    for (const port of ports) {
      const line = nodeLine(port);
      if (line?.includes('myself,master') && ownsSlot(line, slot)) return port;
    }
    throw new Error(`no master serves slot ${slot}`);
  };
  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    masterOf,
    async failover(master: number): Promise<number> {
      const id = ask(master, 'CLUSTER', 'MYID').trim();
      const replica = ports.find((port) => ask(port, 'INFO', 'replication').includes('role:slave') && nodeLine(port)?.split(' ')[3] === id);
      if (!replica) throw new Error(`master ${master} has no replica`);
      const answer = ask(replica, 'CLUSTER', 'FAILOVER').trim();
      if (answer !== 'OK') throw new Error(`CLUSTER FAILOVER on ${replica}: ${answer}`);
      await until(() => ask(replica, 'INFO', 'replication').includes('role:master') && clusterReady(ports, masters * replicas), 60_000, `replica ${replica} to take over from ${master}`);
      return replica;
    },
    stop,
  };
}

/** The node's own line of CLUSTER NODES. */
function nodeLine(port: number): string | undefined {
  return ask(port, 'CLUSTER', 'NODES')
    .split('\n')
    .find((line) => line.includes('myself'));
}

function ownsSlot(line: string, slot: number): boolean {
  return line
    .split(' ')
    .slice(8)
    .some((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return from !== undefined && to !== undefined && slot >= from && slot <= to;
    });
}

/** Every node says cluster_state:ok with all slots served, and there are `replicaCount` replicas with a live link. */
function clusterReady(ports: number[], replicaCount: number): boolean {
  const ok = ports.every((port) => {
    const info = ask(port, 'CLUSTER', 'INFO');
    return info.includes('cluster_state:ok') && info.includes('cluster_slots_ok:16384');
  });
  if (!ok) return false;
  const linked = ports.filter((port) => {
    const info = ask(port, 'INFO', 'replication');
    return info.includes('role:slave') && info.includes('master_link_status:up');
  });
  return linked.length === replicaCount;
}
