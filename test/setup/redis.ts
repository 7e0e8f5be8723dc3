import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

/** Whether a Redis answers PING at host:port within a second. */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** A loopback port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The Redis the tests use: REDIS_URL if set, else 127.0.0.1:6379 if it answers, else a
 * `redis-server` started on a free port for this run (stopped by `stop`).
 */
export async function ensureRedis(): Promise<{ url: string; stop: () => void }> {
  const candidates = [process.env.REDIS_URL, 'redis://127.0.0.1:6379'].filter((u): u is string => Boolean(u));
  for (const url of candidates) if (await redisAnswers(url)) return { url, stop: () => undefined };
  if (process.env.REDIS_URL) throw new Error(`REDIS_URL: no Redis answers at the configured address`);
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('No Redis answers on 127.0.0.1:6379 and redis-server is not installed: install it (apt-get install redis-server) or set REDIS_URL');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], { stdio: 'ignore', detached: false });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await redisAnswers(url)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await redisAnswers(url))) throw new Error(`redis-server did not start on port ${port}`);
  return { url, stop: () => child.kill() };
}

/**
 * Kills the redis-servers a suite started and resolves once each has exited: a process still exiting
 * when the suite ends keeps its jest worker open past jest's 500 ms wait at the run's end.
 */
export async function killAndWait(processes: ChildProcess[]): Promise<void> {
  const exits = processes.map((p) => (p.exitCode !== null || p.signalCode !== null ? undefined : new Promise<void>((resolve) => p.once('exit', () => resolve()))));
  for (const p of processes) p.kill('SIGKILL');
  await Promise.all(exits);
}
