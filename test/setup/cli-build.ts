import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

/**
 * One build of the CLI for the suites that spawn it (made once by the global set-up): each workspace's
 * src/ transpiled by esbuild into `<out>/<workspace>/dist/` (the layout `npm run build` gives, so the
 * bin runs the compiled JavaScript as the published package does), beside the workspace's other files
 * linked in place, and a node_modules whose `@verify-hub/*` packages are these builds. Transpiling
 * only, no type check (`npm run typecheck` does that): a few seconds, where ts-node compiled the
 * sources again in every spawned process.
 */
export async function buildCliForTests(root: string, out: string): Promise<string> {
  const workspaces = workspaceDirs(root);
  const byName = new Map<string, string>();
  for (const ws of workspaces) {
    const manifest = JSON.parse(readFileSync(join(root, ws, 'package.json'), 'utf8')) as { name: string };
    byName.set(manifest.name, ws);
    const src = join(root, ws, 'src');
    const files = listFiles(src);
    await build({
      entryPoints: files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
      outdir: join(out, ws, 'dist'),
      outbase: src,
      format: 'cjs',
      platform: 'node',
      target: 'node22',
      // as tsc's CommonJS output: import() becomes require() (a real dynamic import resolves no extensions)
      supported: { 'dynamic-import': false },
      logLevel: 'silent',
    });
    for (const f of files.filter((f) => !f.endsWith('.ts'))) {
      mkdirSync(dirname(join(out, ws, 'dist', relative(src, f))), { recursive: true });
      copyFileSync(f, join(out, ws, 'dist', relative(src, f)));
    }
    for (const entry of readdirSync(join(root, ws))) {
      if (entry === 'src' || entry === 'dist') continue;
      // Copied, not linked: Node runs a script from its real path, so a linked bin would find the checkout's dist/.
      if (entry === 'package.json' || entry === 'bin') cpSync(join(root, ws, entry), join(out, ws, entry), { recursive: true });
      else symlinkSync(join(root, ws, entry), join(out, ws, entry));
    }
  }
  // node_modules: the checkout's packages, except the workspaces, which are the builds above.
  const modules = join(out, 'node_modules');
  mkdirSync(join(modules, '@verify-hub'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === '@verify-hub' || byName.has(entry)) continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const [name, ws] of byName) symlinkSync(join(out, ws), join(modules, name));
  const bin = join(out, 'cli', 'bin', 'verify-hub.js');
  if (!existsSync(join(out, 'cli', 'dist', 'main.js'))) throw new Error(`the CLI build in ${out} has no dist/main.js`);
  return bin;
}

/** The workspace folders the root package.json names (`connectors/*` expanded), those with a src/. */
function workspaceDirs(root: string): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return workspaces
    .flatMap((pattern) => (pattern.endsWith('/*') ? readdirSync(join(root, pattern.slice(0, -2))).map((d) => `${pattern.slice(0, -2)}/${d}`) : [pattern]))
    .filter((ws) => existsSync(join(root, ws, 'package.json')) && existsSync(join(root, ws, 'src')));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
