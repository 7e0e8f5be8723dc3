import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe, type RunningHub } from '../../cli/src/commands/serve';
import { loadHubConfig } from '../../cli/src/platforms';
import { FakeEngine } from '../fakes/engine';
import { silentLogger } from '../webhooks-in/harness';
import { purgeServeRedis, until } from '../webhooks-in/serve-stack';
import { cliBin } from './cli-bin';
import { requestOnFreshConnection } from './fresh-connection';
import { freePort } from './redis';

/** Polls a read until its value is what the test waits for (throws with the last value). */
export { until };

/** VHTEST_CPU_PROF_DIR: each spawned CLI process writes a V8 CPU profile there (`node --cpu-prof`), to see where serve and workers spend. */
const PROFILE_DIR = process.env.VHTEST_CPU_PROF_DIR;

/** What a platform's fake must offer the harness: it is started by the suite, stopped (or closed) here. */
export type PlatformFake = { stop(): Promise<void> } | { close(): Promise<void> };

/** The parts of a run (GET /api/runs/:id) the suites read. */
export interface HubRun {
  id: string;
  status: string;
  statusReason?: string;
  counters: Record<string, number>;
  progress?: { done: number };
}

/** The hub's JSON, read field by field in the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each suite reads the fields it asserts on
export type HubJson = Record<string, any>;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved as they came. */
  out: string;
}

export interface HubOptions<F extends PlatformFake> {
  /** The platform's id: the runs' `platform`, and the word in the Redis prefix and upload folder. */
  platform: string;
  /** Starts the platform's fake and fills it; called first, before the engine and the hub. */
  fake: () => Promise<F>;
  /** The hub's settings for this platform (its API base, keys, short timers), given the started fake. */
  settings: (fake: F) => Record<string, string | undefined>;
  /** The connection `startRun` starts runs on. */
  connectionId?: (fake: F) => string;
  /**
   * 'in-process' (the default): `verify-hub serve`'s hub started in the test's own process, its stores
   * at hand (`stack.hub.pipeline`). 'process': spawned from the built CLI, as deployed.
   */
  serve?: 'process' | 'in-process';
  /**
   * 'in-hub' (the default): the hub runs the pipeline's workers itself. A number: the hub serves HTTP
   * only (`--no-workers`) and that many `verify-hub worker` processes are started with it (0: the
   * suite starts them with `startWorker`).
   */
  workers?: 'in-hub' | number;
  /** Added to every `verify-hub worker` command line. */
  workerArgs?: string[];
  /** How long `settled` waits for a run unless told; 90 s by default. */
  runTimeoutMs?: number;
  /** The set-up's time limit (jest's default unless given): 25,000 records take a while to seed. */
  startTimeoutMs?: number;
}

/** A worker's chunks taken back after about 8 + 3 s once it is killed, instead of BullMQ's 30 + 30. */
export const KILLED_WORKER_TAKEN_BACK_FAST = { VERIFY_HUB_JOB_LOCK_MS: '8000', VERIFY_HUB_STALLED_INTERVAL_MS: '3000' } as const;

/** The fake engine's verdict for an address is its first word: invalid., risky., else safe. */
export const expectedRisk = (email: string) => (email.startsWith('invalid.') ? 'invalid' : email.startsWith('risky.') ? 'risky' : 'safe');

/** The acceptance suites' addresses, by the fake engine's verdicts (first word), with every 97th unknown (never billed). */
export const acceptanceAddress = (i: number) => `${i % 97 === 5 ? 'unknown' : i % 10 === 9 ? 'invalid' : i % 13 === 3 ? 'risky' : 'user'}.${i}@shop${i % 50}.example.com`;

/** The fake engine's verdict for an `acceptanceAddress`: its first word, `user` being safe. */
export const acceptanceRisk = (email: string) => (email.startsWith('user.') ? 'safe' : email.split('.')[0]);

/**
 * Asserts that a per-contact check found nothing wrong, naming the first five it did find: thousands
 * of contacts are checked in plain code and asserted once (25,000 expect() calls took about a second).
 */
export function expectNoneWrong(wrong: unknown[]): void {
  expect({ wrong: wrong.length, first: wrong.slice(0, 5) }).toEqual({ wrong: 0, first: [] });
}

const FINAL = ['completed', 'failed', 'cancelled', 'paused'];

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/**
 * A platform's hub for one suite, as the platforms' serve and acceptance suites drive it: the
 * platform's fake and the fake engine, `verify-hub serve` (spawned or in process) with a Redis prefix
 * and upload folder of its own, worker processes of the built CLI, and what the tests do with them:
 * the admin API, runs to their end, CLI commands, `kill -9`. `useHub` starts it in `beforeAll` and
 * takes it all down in `afterAll`.
 */
export class HubHarness<F extends PlatformFake> {
  /** The admin token's header, for supertest's `.set(auth)`. */
  readonly auth: { Authorization: string };
  readonly prefix: string;
  private readonly adminToken = `admin-${randomUUID()}`;
  private readonly children = new Set<ChildProcess>();
  private readonly workerSet = new Set<ChildProcess>();
  private readonly teardown: (() => Promise<unknown>)[] = [];
  private readonly options: HubOptions<F> & Required<Pick<HubOptions<F>, 'serve' | 'workers'>>;
  private started?: { fake: F; engine: FakeEngine; env: Record<string, string>; url: string; hub?: RunningHub };

  constructor(options: HubOptions<F>) {
    this.options = { serve: 'in-process', workers: 'in-hub', ...options };
    this.auth = { Authorization: `Bearer ${this.adminToken}` };
    this.prefix = `test-${options.platform}-${randomUUID().slice(0, 8)}`;
  }

  private get running() {
    if (!this.started) throw new Error('the hub is not started: useHub starts it in beforeAll');
    return this.started;
  }
  get fake(): F {
    return this.running.fake;
  }
  get engine(): FakeEngine {
    return this.running.engine;
  }
  get url(): string {
    return this.running.url;
  }
  /** The environment of every process the harness spawns (and of the in-process hub). */
  get env(): Record<string, string> {
    return this.running.env;
  }
  /** The in-process hub (`serve: 'in-process'` only), its pipeline and stores. */
  get hub(): RunningHub {
    const { hub } = this.running;
    if (!hub) throw new Error('the hub runs in a process of its own (serve: "process")');
    return hub;
  }
  /** The worker processes still running, oldest first. */
  get workers(): ChildProcess[] {
    return [...this.workerSet];
  }

  async start(): Promise<void> {
    const { options } = this;
    const fake = await options.fake();
    this.teardown.push(() => ('stop' in fake ? fake.stop() : fake.close()));
    const engine = new FakeEngine();
    await engine.start();
    this.teardown.push(() => engine.stop());
    const uploadDir = mkdtempSync(join(tmpdir(), `vh-${options.platform}-`));
    this.teardown.push(async () => rmSync(uploadDir, { recursive: true, force: true }));
    this.teardown.push(() => purgeServeRedis(this.prefix));
    const port = options.serve === 'process' ? await freePort() : 0;
    const env = Object.fromEntries(
      Object.entries({
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        ENGINE_URL: engine.url,
        ENGINE_API_KEY: engine.apiKey,
        HUB_ADMIN_TOKEN: this.adminToken,
        HUB_SECRET_KEY: 's'.repeat(40),
        HUB_UPLOAD_DIR: uploadDir,
        VERIFY_HUB_REDIS_PREFIX: this.prefix,
        LOG_LEVEL: 'silent',
        ...(port ? { HUB_PUBLIC_URL: `http://127.0.0.1:${port}` } : {}),
        ...options.settings(fake),
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    this.started = { fake, engine, env, url: `http://127.0.0.1:${port}` };
    // Every process the harness spawned goes first (and any that outlived its test), the hub with them.
    this.teardown.push(async () => {
      await Promise.all([...this.children].map(PROFILE_DIR ? this.terminate : this.kill9));
      await this.started?.hub?.close();
    });
    const hubWorkers = options.workers === 'in-hub';
    if (options.serve === 'in-process') {
      const hub = await startServe(loadHubConfig(env), { port: 0, host: '127.0.0.1', workers: hubWorkers, logger: silentLogger });
      Object.assign(this.started, { hub, url: hub.url });
    } else {
      const serve = this.spawnCli(['serve', ...(hubWorkers ? [] : ['--no-workers']), '--port', String(port), '--host', '127.0.0.1']);
      await until(() => fetch(`${this.url}/healthz`).then((r) => r.status, () => 0), (status) => status === 200 || serve.child.exitCode !== null, 60_000);
      if (serve.child.exitCode !== null) throw new Error(`verify-hub serve exited (${serve.child.exitCode}): ${serve.stderr()}`);
    }
    await Promise.all(Array.from({ length: hubWorkers ? 0 : (options.workers as number) }, () => this.startWorker()));
  }

  /** Undoes what `start` did, last first, however far it got; one step failing stops none of the others. */
  async stop(): Promise<void> {
    const failures: unknown[] = [];
    for (const undo of this.teardown.splice(0).reverse()) await undo().catch((error: unknown) => failures.push(error));
    if (failures.length) throw failures[0];
  }

  /** `verify-hub <args>` as a process of the built CLI, stderr's last 4,000 characters kept. */
  private spawnCli(args: string[], extra: Record<string, string> = {}, stdout: 'pipe' | 'ignore' = 'ignore') {
    const env = { ...this.env, ...extra };
    const child = spawn(process.execPath, [...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []), cliBin(env), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'pipe'] });
    this.children.add(child);
    child.once('exit', () => this.children.delete(child));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-4000)));
    return { child, stderr: () => stderr };
  }

  /** One more `verify-hub worker` process; resolves once it says it started. */
  startWorker = async (): Promise<ChildProcess> => {
    const worker = this.spawnCli(['worker', ...(this.options.workerArgs ?? [])]);
    this.workerSet.add(worker.child);
    worker.child.once('exit', () => this.workerSet.delete(worker.child));
    await until(async () => worker.stderr(), (text) => text.includes('worker started') || worker.child.exitCode !== null, 90_000);
    if (worker.child.exitCode !== null) throw new Error(`verify-hub worker exited (${worker.child.exitCode}): ${worker.stderr()}`);
    return worker.child;
  };

  /** SIGTERM, and SIGKILL if still there after 20 s: when profiling, so that each process writes its profile on exit. */
  private terminate = async (child: ChildProcess): Promise<void> => {
    const late = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.kill('SIGTERM');
    await exited(child);
    clearTimeout(late);
  };

  /** `kill -9`: no shutdown, a worker's jobs left mid-way. */
  kill9 = async (child: ChildProcess): Promise<void> => {
    child.kill('SIGKILL');
    await exited(child);
  };

  /** Runs `verify-hub <args>` (with `extra` added to the environment) to its end. */
  cli = async (args: string[], extra: Record<string, string> = {}): Promise<CliResult> => {
    const { child } = this.spawnCli(args, extra, 'pipe');
    const result = { code: null as number | null, stdout: '', stderr: '', out: '' };
    child.stdout!.on('data', (d: Buffer) => ((result.stdout += String(d)), (result.out += String(d))));
    child.stderr!.on('data', (d: Buffer) => ((result.stderr += String(d)), (result.out += String(d))));
    result.code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return result;
  };

  /** One call to the hub's admin API as the admin: its status and JSON body ({} when none). */
  api = async <T = HubJson>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    // A connection per call: runs are polled for minutes, which a pooled fetch connection may not outlive (fresh-connection.ts).
    const res = await requestOnFreshConnection(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    let parsed: unknown = {};
    try {
      parsed = JSON.parse(res.text);
    } catch {
      // not JSON (an empty answer): {} as before
    }
    return { status: res.status, body: parsed as T };
  };

  runOf = async (id: string): Promise<HubRun> => (await this.api<HubRun>('GET', `/api/runs/${id}`)).body;

  /** The run once it completed, failed, was cancelled or paused. */
  settled = (id: string, timeoutMs = this.options.runTimeoutMs ?? 90_000): Promise<HubRun> => until(() => this.runOf(id), (run) => FINAL.includes(run.status), timeoutMs);

  /** Starts a run of `scope` on the suite's connection (201 expected); its id. */
  startRun = async (scope = 'all'): Promise<string> => {
    const started = await this.api('POST', '/api/runs', { platform: this.options.platform, connectionId: this.options.connectionId?.(this.fake), scope });
    expect(started.status).toBe(201);
    return String(started.body.id);
  };

  /** A run of `scope` from its start to its end. */
  runToEnd = async (scope = 'all'): Promise<HubRun> => this.settled(await this.startRun(scope));
}

/** The suite's hub: started in `beforeAll`, everything it made taken down in `afterAll`. */
export function useHub<F extends PlatformFake>(options: HubOptions<F>): HubHarness<F> {
  const harness = new HubHarness(options);
  beforeAll(() => harness.start(), options.startTimeoutMs);
  afterAll(() => harness.stop(), 60_000);
  return harness;
}
