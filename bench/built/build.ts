import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Builds every package (`npm run build`) when the CLI's dist is missing; true when it built (remove it after with `removeBuild`). */
export function ensureBuilt(): boolean {
  if (existsSync(join(ROOT, 'cli', 'dist', 'main.js'))) return false;
  console.log('building the packages (npm run build) ...');
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error('npm run build failed');
  return true;
}

/** Removes each workspace's dist/ and tsbuildinfo, by exact path: a git pathspec such as star-slash-dist also matches inside node_modules. */
export function removeBuild(): void {
  const { workspaces } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  const folders = workspaces.flatMap((w) => (w.endsWith('/*') ? readdirSync(join(ROOT, w.slice(0, -2))).map((name) => join(w.slice(0, -2), name)) : [w]));
  for (const folder of folders) {
    rmSync(join(ROOT, folder, 'dist'), { recursive: true, force: true });
    for (const file of existsSync(join(ROOT, folder)) ? readdirSync(join(ROOT, folder)) : []) if (file.endsWith('.tsbuildinfo')) rmSync(join(ROOT, folder, file));
  }
}
