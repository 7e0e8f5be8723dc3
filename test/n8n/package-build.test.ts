import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import * as ts from 'typescript';
import type { ICredentialType, INodeType } from 'n8n-workflow';

const PKG_DIR = join(__dirname, '..', '..', 'connectors', 'n8n');
const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as {
  name: string;
  keywords: string[];
  scripts: Record<string, string>;
  n8n: { n8nNodesApiVersion: number; nodes: string[]; credentials: string[] };
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/**
 * Builds the package the way `npm run build` lays it out (src/ -> dist/, then the asset copy step) into
 * a temporary directory (git-ignored test-output/), with TypeScript's transpiler: the type check is
 * `npm run typecheck`'s job, the layout and the assets are this test's.
 */
function buildInto(outRoot: string): void {
  const src = join(PKG_DIR, 'src');
  for (const file of sourceFiles(src)) {
    const out = join(outRoot, 'dist', relative(src, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    });
    writeFileSync(out, outputText);
  }
  execFileSync(process.execPath, [join(PKG_DIR, 'scripts', 'copy-assets.js'), join(outRoot, 'dist')], { stdio: 'pipe' });
}

describe('n8n-nodes-verify-hub package', () => {
  const outRoot = join(PKG_DIR, 'test-output', `build-${process.pid}`);

  beforeAll(() => buildInto(outRoot));
  afterAll(() => rmSync(join(PKG_DIR, 'test-output'), { recursive: true, force: true }));

  test('is a community node package: name, keyword, n8n section, build step, n8n-workflow as peer', () => {
    expect(pkg.name).toMatch(/^(@[^/]+\/)?n8n-nodes-/);
    expect(pkg.keywords).toContain('n8n-community-node-package');
    expect(pkg.n8n.n8nNodesApiVersion).toBe(1);
    expect(pkg.scripts.build).toBe('tsc -b && node scripts/copy-assets.js');
    expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
    expect(pkg.devDependencies['n8n-workflow']).toBe('2.11.1');
    expect(Object.keys(pkg.dependencies)).toEqual(['@verify-hub/core']);
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
      const icon = String(credential.icon ?? '').replace(/^file:/, '');
      expect(existsSync(join(dirname(file), icon))).toBe(true);
    }
    for (const path of pkg.n8n.nodes) {
      const file = join(outRoot, path);
      expect(existsSync(file)).toBe(true);
      const className = basename(file).split('.')[0]!;
      const Node = (require(file) as Record<string, new () => INodeType>)[className]!;
      const { description } = new Node();
      expect(existsSync(join(dirname(file), String(description.icon).replace(/^file:/, '')))).toBe(true);
      const codex = JSON.parse(readFileSync(file.replace(/\.js$/, '.json'), 'utf8')) as { node: string; categories: string[] };
      expect(codex.node).toBe(`${pkg.name}.${description.name}`);
      expect(codex.categories.length).toBeGreaterThan(0);
      for (const c of description.credentials ?? []) expect(credentialNames).toContain(c.name);
    }
  });
});
