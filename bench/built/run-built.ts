import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { build, type Plugin } from 'esbuild';

const ROOT = join(__dirname, '..', '..');

/** A relative import of one of our packages' sources (`../cli/src/platforms`) becomes a require of what tsc built of it. */
const ourSourcesFromDist: Plugin = {
  name: 'our-sources-from-dist',
  setup(build) {
    build.onResolve({ filter: /\/src\// }, (args) => {
      if (!args.path.startsWith('.')) return undefined;
      const inRepo = relative(ROOT, resolve(args.resolveDir, args.path)).split(sep);
      const at = inRepo.indexOf('src');
      if (at < 1 || inRepo[0] === 'test' || inRepo[0] === 'bench') return undefined;
      return { path: join(ROOT, ...inRepo.slice(0, at), 'dist', ...inRepo.slice(at + 1)).replace(/(\.ts)?$/, '.js'), external: true };
    });
  },
};

/**
 * A bench script as a deployment would run our code: one CommonJS file for plain `node`, no ts-node
 * and no TypeScript compiler in the process. The script and the test fakes it imports are bundled;
 * every package (ours included) and our packages' sources stay external, so they are the `dist/`
 * that `npm run build` made. The file sits inside the repository so that its requires find node_modules.
 */
export async function bundleForNode(entry: string): Promise<{ file: string; remove: () => void }> {
  const cache = join(ROOT, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'vh-bench-built-'));
  const file = join(dir, 'main.js');
  await build({ entryPoints: [entry], outfile: file, bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external', plugins: [ourSourcesFromDist], logLevel: 'warning' });
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BuiltRun {
  status: number | null;
  output: string;
  /** The child's peak RSS (VmHWM), as it reported it just before exiting. */
  peakRss: number;
}

/** Runs a bench script bundled by `bundleForNode` in its own process and collects its output. */
export async function runBuilt(entry: string, args: string[] = [], nodeArgs: string[] = []): Promise<BuiltRun> {
  const bundled = await bundleForNode(entry);
  try {
    const child = spawn(process.execPath, [...nodeArgs, bundled.file, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += String(d)));
    child.stderr!.on('data', (d: Buffer) => (output += String(d)));
    // The child reports its own peak on its last line: the kernel's figure is gone once it exits.
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const peak = /^peak-rss (\d+)$/m.exec(output);
    return { status, output: output.replace(/^peak-rss \d+\n?/m, ''), peakRss: Number(peak?.[1] ?? 0) };
  } finally {
    bundled.remove();
  }
}

/** For a child started by `runBuilt`: prints its VmHWM where the parent reads it. */
export function reportPeakRss(): void {
  const status = readFileSync('/proc/self/status', 'utf8');
  console.log(`peak-rss ${Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024}`);
}
