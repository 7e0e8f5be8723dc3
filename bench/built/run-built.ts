import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = join(__dirname, '..', '..');

export interface BuiltRun {
  status: number | null;
  output: string;
  /** The child's peak RSS (VmHWM), read from the kernel just before it exits. */
  peakRss: number;
}

/**
 * Runs a bench script as a deployment would run our code: plain `node`, no ts-node and no TypeScript
 * compiler in the process. The script and the test fakes it imports are bundled into one CommonJS
 * file; every package (ours included) stays external, so `@verify-hub/*` resolve to their built
 * `dist/` (run `npm run build` first).
 */
export async function runBuilt(entry: string, args: string[] = [], nodeArgs: string[] = []): Promise<BuiltRun> {
  // Inside the repository, so that the bundle's requires find its node_modules.
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'vh-bench-built-'));
  const outfile = join(dir, 'main.js');
  try {
    buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external', logLevel: 'warning' });
    const child = spawn(process.execPath, [...nodeArgs, outfile, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += String(d)));
    child.stderr!.on('data', (d: Buffer) => (output += String(d)));
    // The child reports its own peak on its last line: the kernel's figure is gone once it exits.
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const peak = /^peak-rss (\d+)$/m.exec(output);
    return { status, output: output.replace(/^peak-rss \d+\n?/m, ''), peakRss: Number(peak?.[1] ?? 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** For a child started by `runBuilt`: prints its VmHWM where the parent reads it. */
export function reportPeakRss(): void {
  const status = readFileSync('/proc/self/status', 'utf8');
  console.log(`peak-rss ${Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024}`);
}
