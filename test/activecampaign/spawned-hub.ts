import { spawn, type ChildProcess } from 'node:child_process';
import { cliBin } from '../setup/cli-bin';
import { freePort } from '../setup/redis';
import { purgeServeRedis } from '../webhooks-in/serve-stack';

/** Runs `verify-hub <args>` to its end: exit code and output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cliBin(env), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
  child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

export interface SpawnedHub {
  url: string;
  workers: ChildProcess[];
  /** One more `verify-hub worker` process. */
  addWorker(): ChildProcess;
  /** `kill -9` of a worker: no shutdown, its jobs left mid-way. */
  killHard(worker: ChildProcess): Promise<void>;
  close(): Promise<void>;
}

const exited = (child: ChildProcess) => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve())));

/**
 * `verify-hub serve --no-workers` and `workers` × `verify-hub worker`, each its own process of the built
 * CLI, sharing Redis under the environment's VERIFY_HUB_REDIS_PREFIX: the hub answers HTTP and
 * webhooks, the workers run the pipeline. Ready once the hub answers /healthz.
 */
export async function startSpawnedHub(env: Record<string, string>, workers = 2): Promise<SpawnedHub> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const all = { ...env, PORT: String(port), HUB_HOST: '127.0.0.1' };
  const spawnCli = (args: string[]) => spawn(process.execPath, [cliBin(all), ...args], { env: { ...process.env, ...all }, stdio: ['ignore', 'ignore', 'inherit'] });
  const serve = spawnCli(['serve', '--no-workers', '--port', String(port), '--host', '127.0.0.1']);
  const hub: SpawnedHub = {
    url,
    workers: [],
    addWorker() {
      const worker = spawnCli(['worker']);
      hub.workers.push(worker);
      return worker;
    },
    async killHard(worker) {
      worker.kill('SIGKILL');
      await exited(worker);
      hub.workers.splice(hub.workers.indexOf(worker), 1);
    },
    async close() {
      for (const child of [serve, ...hub.workers]) child.kill('SIGTERM');
      await Promise.all([serve, ...hub.workers].map(exited));
      await purgeServeRedis(env.VERIFY_HUB_REDIS_PREFIX!);
    },
  };
  for (let i = 0; i < workers; i++) hub.addWorker();
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return hub;
    if (Date.now() > deadline || serve.exitCode !== null) {
      await hub.close();
      throw new Error('verify-hub serve did not answer /healthz');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
