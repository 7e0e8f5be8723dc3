/**
 * The local engine's own overhead per verification, against DNS and SMTP peers that answer at once.
 *
 * The peers run in a child process, so this process's time is the engine's alone. The baseline is a
 * minimal client measured in the same run doing the same round trips as the engine for one address at
 * acme-mail.com (MX; A and AAAA of both MX hosts; SPF, DMARC and 8 DKIM TXT; 10 DNSBL lookups; then
 * EHLO, STARTTLS, EHLO, MAIL FROM, RCPT TO twice, QUIT) with no checks, classification or scoring.
 * Overhead = engine time - baseline time at the same percentile. Also: the no-network path (syntax,
 * lists, local-part checks only) and a warm domain cache. Bounded: a few hundred verifications per mode.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as dns } from 'node:dns';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { DEFAULT_DKIM_SELECTORS, DEFAULT_DNSBL_ZONES, LocalEngine } from '@verify-hub/engine';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 250);
const ADDRESS = 'john@acme-mail.com';

async function runPeers(): Promise<void> {
  const { startMailWorld } = require('../test/fakes/mail-peers') as typeof import('../test/fakes/mail-peers');
  const world = await startMailWorld();
  world.smtp.script(ADDRESS, 'accept');
  console.log(`READY ${world.dnsServer} ${world.smtpPort}`);
  process.stdin.resume();
  process.stdin.on('end', () => void world.stop().then(() => process.exit(0)));
}

function startPeers(): Promise<{ child: ChildProcess; dnsServer: string; smtpPort: number }> {
  const child = spawn(process.execPath, [...process.execArgv.filter((a) => a !== '--expose-gc'), __filename, '--peers'], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /^READY (\S+) (\d+)$/.exec(line);
      if (m) resolve({ child, dnsServer: m[1]!, smtpPort: Number(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`peers exited with ${code}`)));
  });
}

/** The baseline: the same DNS and SMTP round trips, nothing else. */
async function minimalClient(resolver: dns.Resolver, smtpPort: number): Promise<void> {
  const mx = await resolver.resolveMx('acme-mail.com');
  const hosts = mx.sort((a, b) => a.priority - b.priority).map((r) => r.exchange);
  const addresses = await Promise.all(hosts.map(async (h) => Promise.all([resolver.resolve4(h), resolver.resolve6(h).catch(() => [])])));
  const ip = addresses[0]![0]![0]!;
  const reversed = ip.split('.').reverse().join('.');
  await Promise.all([
    resolver.resolveTxt('acme-mail.com'),
    resolver.resolveTxt('_dmarc.acme-mail.com'),
    ...DEFAULT_DKIM_SELECTORS.map((s) => resolver.resolveTxt(`${s}._domainkey.acme-mail.com`).catch(() => [])),
    ...DEFAULT_DNSBL_ZONES.map((z) => resolver.resolve4(`${reversed}.${z}`).catch(() => [])),
  ]);
  let socket: Socket = await new Promise((resolve, reject) => {
    const s = netConnect({ host: ip, port: smtpPort }, () => resolve(s));
    s.once('error', reject);
  });
  let buffer = '';
  let waiting: ((line: string) => void) | undefined;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let i: number;
    while ((i = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (line[3] !== '-' && waiting) {
        const w = waiting;
        waiting = undefined;
        w(line);
      }
    }
  };
  socket.on('data', onData);
  const reply = () => new Promise<string>((r) => (waiting = r));
  const send = (command: string) => {
    const p = reply();
    socket.write(`${command}\r\n`);
    return p;
  };
  await reply();
  await send('EHLO bench.local');
  await send('STARTTLS');
  socket.off('data', onData);
  socket = await new Promise((resolve) => {
    const t = tlsConnect({ socket, rejectUnauthorized: false }, () => resolve(t));
  });
  socket.on('data', onData);
  await send('EHLO bench.local');
  await send('MAIL FROM:<probe@bench.local>');
  await send(`RCPT TO:<${ADDRESS}>`);
  await send('RCPT TO:<vh-probe-0123456789ab@acme-mail.com>');
  await send('QUIT');
  socket.destroy();
}

interface Stats {
  wallP50: number;
  wallP99: number;
  /** CPU time of this process per verification (the peers run in a child): mean, p50, p99. GC pauses included. */
  cpuMean: number;
  cpuP50: number;
  cpuP99: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function measure(run: () => Promise<unknown>, iterations = ITERATIONS): Promise<Stats> {
  for (let i = 0; i < 20; i++) await run(); // warm-up: lists loaded, JIT settled
  (globalThis as { gc?: () => void }).gc?.(); // every mode starts from the same clean heap
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    await run();
    wall.push(performance.now() - t);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
  }
  const cpuMean = cpu.reduce((a, b) => a + b, 0) / cpu.length;
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  return { wallP50: percentile(wall, 0.5), wallP99: percentile(wall, 0.99), cpuMean, cpuP50: percentile(cpu, 0.5), cpuP99: percentile(cpu, 0.99) };
}

const ms = (n: number) => `${n.toFixed(2).padStart(7)} ms`;

async function main(): Promise<void> {
  const peers = await startPeers();
  // One session per address (no reuse), so the engine does the same round trips as the baseline client.
  const common = { dnsServers: [peers.dnsServer], smtpPort: peers.smtpPort, allowPrivateMx: true, heloName: 'bench.local', mailFrom: 'probe@bench.local', smtpSessionIdleMs: 0 };
  const cold = new LocalEngine({ ...common, domainCacheTtlMs: 0 });
  const warm = new LocalEngine({ ...common });
  const check = await cold.verify(ADDRESS);
  if (check.risk !== 'safe') throw new Error(`bench setup: expected safe, got ${check.risk}/${check.reason}`);
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([peers.dnsServer]);

  const baseline = await measure(() => minimalClient(resolver, peers.smtpPort));
  const engineCold = await measure(() => cold.verify(ADDRESS));
  const engineWarm = await measure(() => warm.verify(ADDRESS));
  const offline = new LocalEngine({ dnsServers: ['127.0.0.1:9'], smtp: false });
  const offlineAddresses = ['temp@mailinator.com', 'john@example.com', 'bad..dots@acme-mail.com', 'Sales+Leads@shop.test'];
  let k = 0;
  const noNetwork = await measure(() => offline.verify(offlineAddresses[k++ % offlineAddresses.length]!), ITERATIONS * 10);
  peers.child.stdin!.end();
  await new Promise((r) => peers.child.once('exit', r));

  const rssMb = process.resourceUsage().maxRSS / 1024;
  const row = (label: string, s: Stats) => console.log(`${label.padEnd(28)}${ms(s.wallP50)} ${ms(s.wallP99)}   ${ms(s.cpuMean)}   ${ms(s.cpuP50)} ${ms(s.cpuP99)}`);
  console.log(`local peers answering at once (smtp-server holds every greeting 100 ms to catch early talkers: in both rows);`);
  console.log(`${ITERATIONS} sequential verifications of ${ADDRESS} per mode (no-network: ${ITERATIONS * 10}); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs`);
  console.log('CPU = this process only (the peers run in a child), garbage collection included: p99 catches the odd major GC');
  console.log(`                              wall p50    wall p99     CPU mean      CPU p50     CPU p99`);
  row('baseline (minimal client)', baseline);
  row('engine, cold domain', engineCold);
  row('engine, warm domain cache', engineWarm);
  row('engine, no network needed', noNetwork);
  console.log(`our own work per verification, cold domain (engine - baseline CPU): mean ${ms(engineCold.cpuMean - baseline.cpuMean)}, p50 ${ms(engineCold.cpuP50 - baseline.cpuP50)}, p99 ${ms(engineCold.cpuP99 - baseline.cpuP99)}  (goal p99 < 5 ms)`);
  console.log(`ratio engine / baseline, cold domain: CPU mean ${(engineCold.cpuMean / baseline.cpuMean).toFixed(2)}x, CPU p99 ${(engineCold.cpuP99 / baseline.cpuP99).toFixed(2)}x, wall p50 ${(engineCold.wallP50 / baseline.wallP50).toFixed(2)}x`);
  console.log(`peak RSS of the engine process: ${rssMb.toFixed(0)} MB`);
}

if (process.argv.includes('--peers')) {
  void runPeers();
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
