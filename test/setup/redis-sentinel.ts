import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ask } from './redis-cluster';
import { freePort, killAndWait } from './redis';
import { until } from './until';

export interface LocalSentinel {
  /** `redis+sentinel://…/<master name>`. */
  url: string;
  /** The port of the master the sentinel names now. */
  masterPort(): number;
  /** `SENTINEL FAILOVER`; resolves once the sentinel names the former replica and it serves writes. */
  failover(): Promise<number>;
  /** Kills every redis-server and resolves once each has exited (a jest worker waits for none at its end). */
  stop(): Promise<void>;
}

/** One master, one replica and one sentinel watching them, on loopback ports, in a temp dir. */
export async function startRedisSentinel(masterName = 'vhmaster'): Promise<LocalSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'vh-redis-sentinel-'));
  const [master, replica, sentinel] = [await freePort(), await freePort(), await freePort()] as [number, number, number];
  const common = ['--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
  const processes: ChildProcess[] = [
    spawn('redis-server', ['--port', String(master), ...common], { stdio: 'ignore' }),
    spawn('redis-server', ['--port', String(replica), '--replicaof', '127.0.0.1', String(master), ...common], { stdio: 'ignore' }),
  ];
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, [`port ${sentinel}`, 'bind 127.0.0.1', `dir ${dir}`, `sentinel monitor ${masterName} 127.0.0.1 ${master} 1`, `sentinel down-after-milliseconds ${masterName} 3000`, `sentinel failover-timeout ${masterName} 20000`, ''].join('\n'));
  processes.push(spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }));
  const stop = async () => {
    await killAndWait(processes);
    rmSync(dir, { recursive: true, force: true });
  };
  const masterPort = () => Number(ask(sentinel, 'SENTINEL', 'get-master-addr-by-name', masterName).trim().split('\n')[1]);
  const replicaKnown = () => ask(sentinel, 'SENTINEL', 'replicas', masterName).includes('slave');
  try {
    await until(() => ask(replica, 'INFO', 'replication').includes('master_link_status:up') && masterPort() === master && replicaKnown(), 60_000, 'the replica in sync and known to the sentinel');
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `redis+sentinel://127.0.0.1:${sentinel}/${masterName}`,
    masterPort,
    async failover() {
      const before = masterPort();
      const answer = ask(sentinel, 'SENTINEL', 'FAILOVER', masterName).trim();
      if (answer !== 'OK') throw new Error(`SENTINEL FAILOVER: ${answer}`);
      await until(() => masterPort() !== before && ask(masterPort(), 'INFO', 'replication').includes('role:master'), 60_000, 'the sentinel to promote the replica');
      return masterPort();
    },
    stop,
  };
}
