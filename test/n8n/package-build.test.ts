import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import type { ICredentialType, INodeType } from 'n8n-workflow';

const PKG_DIR = join(__dirname, '..', '..', 'connectors', 'n8n');
const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as {
  name: string;
  keywords: string[];
  scripts: Record<string, string>;
  n8n: { n8nNodesApiVersion: number; strict?: boolean; nodes: string[]; credentials: string[] };
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/**
 * Runs the package's own build step (scripts/build-dist.js: the esbuild bundles n8n loads, plus icons and
 * codex) into a temporary directory under the git-ignored test-output/, so `n8n-workflow` resolves as
 * it would inside n8n. (`tsc -b`, the other half of `npm run build`, only type-checks and writes
 * declarations: that is `npm run typecheck`'s job here.)
 */
/** The icon files a node or credential names (`file:x.svg`, or `{ light, dark }`). */
function iconFiles(icon: unknown): string[] {
  const names = typeof icon === 'object' && icon !== null ? Object.values(icon as Record<string, string>) : [icon];
  return names.map((name) => String(name).replace(/^file:/, ''));
}

/** The files `npm pack` would put in the tarball (`--dry-run`: nothing is written). */
function packedFiles(dir: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const [report] = JSON.parse(out) as [{ files: { path: string }[] }];
  return report.files.map((f) => f.path);
}

function buildInto(outRoot: string): string {
  return execFileSync(process.execPath, [join(PKG_DIR, 'scripts', 'build-dist.js'), join(outRoot, 'dist')], { encoding: 'utf8' });
}

describe('n8n-nodes-verify-hub package', () => {
  const outRoot = join(PKG_DIR, 'test-output', `build-${process.pid}`);

  let buildLog = '';
  beforeAll(() => {
    buildLog = buildInto(outRoot);
  });
  afterAll(() => rmSync(join(PKG_DIR, 'test-output'), { recursive: true, force: true }));

  test('is a community node package: name, keyword, n8n section, build step, no runtime dependencies', () => {
    expect(pkg.name).toMatch(/^(@[^/]+\/)?n8n-nodes-/);
    expect(pkg.keywords).toContain('n8n-community-node-package');
    expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
    expect(pkg.n8n.strict).toBe(true); // n8n-node's strict mode: cloud lint rules, the default config
    expect(pkg.scripts.build).toBe('tsc -b && node scripts/build-dist.js');
    // The repository's build makes every package's shippable output: these bundles too.
    const root = JSON.parse(readFileSync(join(PKG_DIR, '..', '..', 'package.json'), 'utf8')) as { scripts: { build: string } };
    expect(root.scripts.build).toMatch(/^node scripts\/build-projects\.js && .*node connectors\/n8n\/scripts\/build-dist\.js/);
    expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
    expect(pkg.devDependencies['n8n-workflow']).toBe('2.11.1');
    expect(pkg.devDependencies['@verify-hub/core']).toBeDefined();
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  test('the bundles need nothing at run time but n8n-workflow and Node built-ins', () => {
    expect(buildLog).toMatch(/bundled .*EmailVerification\.node\.js/);
    for (const path of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
      const code = readFileSync(join(outRoot, path), 'utf8');
      const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
      expect(required.filter((name) => name !== 'n8n-workflow' && !name.startsWith('node:'))).toEqual([]);
    }
  });

  test('npm pack: the tarball holds every file the n8n section names, with icons and codex, and no sources', () => {
    // A copy of the package folder (what `files` filters) with the build above as its dist/.
    const copy = mkdtempSync(join(tmpdir(), 'n8n-pack-'));
    try {
      const skip = new Set(['node_modules', 'test-output', 'dist']);
      cpSync(PKG_DIR, copy, { recursive: true, filter: (src) => !skip.has(relative(PKG_DIR, src).split(/[\\/]/)[0]!) });
      cpSync(join(outRoot, 'dist'), join(copy, 'dist'), { recursive: true });
      const files = packedFiles(copy);
      const named = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
      expect(named.length).toBeGreaterThan(0);
      expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', ...named]));
      for (const path of pkg.n8n.nodes) expect(files).toContain(path.replace(/\.js$/, '.json'));
      for (const icon of ['verifyHub.svg', 'verifyHub.dark.svg']) for (const path of named) expect(files).toContain(`${dirname(path)}/${icon}`);
      expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test('every n8n path exists after the build and exports the class n8n loads by file name', () => {
    const credentialNames: string[] = [];
    for (const path of pkg.n8n.credentials) {
      const file = join(outRoot, path);
      expect(existsSync(file)).toBe(true);
      const className = basename(file).split('.')[0]!;
      const Credential = (require(file) as Record<string, new () => ICredentialType>)[className]!;
      const credential = new Credential();
      credentialNames.push(credential.name);
      expect(iconFiles(credential.icon)).toHaveLength(2);
      for (const icon of iconFiles(credential.icon)) expect(existsSync(join(dirname(file), icon))).toBe(true);
    }
    for (const path of pkg.n8n.nodes) {
      const file = join(outRoot, path);
      expect(existsSync(file)).toBe(true);
      const className = basename(file).split('.')[0]!;
      const Node = (require(file) as Record<string, new () => INodeType>)[className]!;
      const { description } = new Node();
      expect(iconFiles(description.icon)).toHaveLength(2);
      for (const icon of iconFiles(description.icon)) expect(existsSync(join(dirname(file), icon))).toBe(true);
      const codex = JSON.parse(readFileSync(file.replace(/\.js$/, '.json'), 'utf8')) as { node: string; categories: string[] };
      expect(codex.node).toBe(`${pkg.name}.${description.name}`);
      expect(codex.categories.length).toBeGreaterThan(0);
      for (const c of description.credentials ?? []) expect(credentialNames).toContain(c.name);
    }
  });
});
