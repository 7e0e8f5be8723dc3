import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBuildLock } from './build-lock';

/**
 * What each published artefact holds, checked on the real thing: `npm pack --dry-run` of every npm
 * package after `npm run build`, and the Python client's wheel and sdist built by its own backend with
 * the standard library alone. Each list may hold only what users run (built code, types), the README,
 * LICENSE and CHANGELOG.md, plus the few files a package names on purpose; never sources, tests,
 * source maps (they point at src/, which is not shipped), build info or anything secret-looking.
 */
const ROOT = join(__dirname, '..', '..');
const { workspaces } = require(join(ROOT, 'scripts', 'workspaces.js')) as {
  workspaces: (root: string) => { dir: string; name: string; private: boolean; manifest: { main?: string; types?: string; bin?: Record<string, string>; dependencies?: Record<string, string>; keywords?: string[]; n8n?: { nodes: string[]; credentials: string[] } } }[];
};
const npmPackages = workspaces(ROOT).filter((p) => !p.private);
const LICENSE = readFileSync(join(ROOT, 'LICENSE'), 'utf8');

/** Files a package ships on purpose beyond dist/'s code and types, by package folder. */
const EXTRA: Record<string, RegExp> = {
  engine: /^openapi\.yaml$/,
  cli: /^bin\/verify-hub\.js$/,
  'connectors/zapier': /^index\.js$/,
  // n8n loads the codex (.node.json) and icons beside each bundle; the notices name what is bundled.
  'connectors/n8n': /^dist\/(.+\.node\.json|.+\.svg|THIRD-PARTY-NOTICES\.md)$/,
  // The dashboard the hub serves, and the notices of what its bundle holds (Preact).
  'webhooks-in': /^dist\/dashboard\/(index\.html|app\.js|app\.css|favicon\.svg|THIRD-PARTY-NOTICES\.md)$/,
};
const ALWAYS = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md)$/;
const CODE = /^dist\/.+\.(js|cjs|mjs|d\.ts|d\.cts|d\.mts)$/;
// Key and credential files by their usual names (.env, .npmrc, *.pem, *.key, id_rsa, .zapierapprc, ...).
const NEVER = /(\.map$|\.tsbuildinfo$|(^|\/)src\/|\.test\.|(^|\/)test\/|(^|\/)(\.env(\..*)?|\.npmrc|\.zapierapprc|id_[rd]sa.*|credentials\.json)$|\.(pem|key|p12|pfx)$)/i;

/** The files `npm pack` would publish, by package name: one npm run for every workspace (18 runs took ~30 s). */
function packedFilesByName(): Map<string, string[]> {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error', '--workspaces'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return new Map((JSON.parse(out) as { name: string; files: { path: string }[] }[]).map((p) => [p.name, p.files.map((f) => f.path).sort()]));
}

describe('the npm packages, as `npm pack` would publish them after `npm run build`', () => {
  const packed = new Map<string, string[]>();
  beforeAll(() => {
    withBuildLock(() => execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' }));
    const byName = packedFilesByName();
    for (const p of npmPackages) packed.set(p.dir, byName.get(p.name) ?? []);
  }, 600_000);

  test('these are the packages we publish (and any platform made since, as @verify-hub/connector-<id>)', () => {
    const known = [
      '@verify-hub/client',
      '@verify-hub/connector-file',
      '@verify-hub/connector-hubspot',
      '@verify-hub/connector-mailchimp',
      '@verify-hub/core',
      '@verify-hub/engine',
      '@verify-hub/mcp',
      '@verify-hub/sync-jobs',
      '@verify-hub/webhooks-in',
      'n8n-nodes-verify-hub',
      'verify-hub',
      'verify-hub-zapier',
    ];
    const names = npmPackages.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(known));
    expect(names.filter((name) => !known.includes(name) && !/^@verify-hub\/connector-[a-z][a-z0-9-]*$/.test(name))).toEqual([]);
  });

  test.each(npmPackages.map((p) => [p.name, p] as const))('%s: built code, types, README, LICENSE (and CHANGELOG once released), nothing else', (_name, p) => {
    const files = packed.get(p.dir)!;
    const stray = files.filter((f) => !ALWAYS.test(f) && !CODE.test(f) && !EXTRA[p.dir]?.test(f));
    expect(stray).toEqual([]);
    expect(files.filter((f) => NEVER.test(f))).toEqual([]);
    const wanted = ['package.json', 'README.md', 'LICENSE', p.manifest.main, p.manifest.types, ...Object.values(p.manifest.bin ?? {})];
    if (existsSync(join(ROOT, p.dir, 'CHANGELOG.md'))) wanted.push('CHANGELOG.md');
    expect(files).toEqual(expect.arrayContaining(wanted.filter((f): f is string => Boolean(f)).map((f) => f.replace(/^\.\//, ''))));
    expect(readFileSync(join(ROOT, p.dir, 'LICENSE'), 'utf8')).toBe(LICENSE);
  });

  test('the n8n node: the community-node keyword, no runtime dependencies, and notices for what its bundles hold', () => {
    const n8n = npmPackages.find((p) => p.dir === 'connectors/n8n')!;
    expect(n8n.manifest.keywords).toContain('n8n-community-node-package');
    expect(n8n.manifest.dependencies ?? {}).toEqual({});
    const files = packed.get('connectors/n8n')!;
    expect(files).toEqual(expect.arrayContaining([...n8n.manifest.n8n!.nodes, ...n8n.manifest.n8n!.credentials, 'dist/THIRD-PARTY-NOTICES.md']));
    const notices = readFileSync(join(ROOT, 'connectors', 'n8n', 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8');
    expect(notices).toMatch(/^## zod@\S+ \(MIT\)$/m); // core's schemas are compiled in
    expect(notices).toContain('Permission is hereby granted');
  });

  test("the hub's dashboard bundle ships with Preact's notice", () => {
    expect(packed.get('webhooks-in')).toContain('dist/dashboard/THIRD-PARTY-NOTICES.md');
    expect(readFileSync(join(ROOT, 'webhooks-in', 'dist', 'dashboard', 'THIRD-PARTY-NOTICES.md'), 'utf8')).toMatch(/^## preact@\S+ \(MIT\)$/m);
  });
});

describe('the Python client (clients/python), built offline by its standard-library backend', () => {
  const python = process.env.PYTHON ?? 'python3';
  const hasPython = spawnSync(python, ['--version']).status === 0;
  const PY = join(ROOT, 'clients', 'python');
  let out = '';
  beforeAll(() => {
    if (!hasPython) return;
    out = mkdtempSync(join(tmpdir(), 'py-dist-'));
    // -I -S: no user site, no site-packages: only the standard library can be imported.
    const script = `import sys; sys.path.insert(0, 'build_backend'); import verify_hub_build as b; print(b.build_wheel(sys.argv[1])); print(b.build_sdist(sys.argv[1]))`;
    execFileSync(python, ['-I', '-S', '-c', script, out], { cwd: PY, encoding: 'utf8' });
  });
  afterAll(() => out && rmSync(out, { recursive: true, force: true }));

  const list = (args: string[]) => execFileSync(python, ['-I', '-S', '-c', args[0]!, ...args.slice(1)], { encoding: 'utf8' }).trim().split('\n').sort();

  (hasPython || process.env.CI === 'true' ? test : test.skip)('pyproject asks for no build requirements; wheel and sdist hold the package, LICENSE and metadata only', () => {
    expect(hasPython).toBe(true);
    const pyproject = readFileSync(join(PY, 'pyproject.toml'), 'utf8');
    expect(pyproject).toMatch(/^requires = \[\]$/m);
    expect(pyproject).toMatch(/^build-backend = "verify_hub_build"$/m);
    const version = /^version = "([^"]+)"$/m.exec(pyproject)![1];
    const dist = `verify_hub_client-${version}`;
    const wheel = list(['import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', join(out, `${dist}-py3-none-any.whl`)]);
    expect(wheel).toEqual(
      [
        'verify_hub/__init__.py',
        'verify_hub/client.py',
        'verify_hub/py.typed',
        'verify_hub/types.py',
        `${dist}.dist-info/METADATA`,
        `${dist}.dist-info/RECORD`,
        `${dist}.dist-info/WHEEL`,
        `${dist}.dist-info/licenses/LICENSE`,
      ].sort(),
    );
    const sdist = list(['import sys, tarfile; print("\\n".join(tarfile.open(sys.argv[1]).getnames()))', join(out, `${dist}.tar.gz`)]);
    const expected = ['pyproject.toml', 'README.md', 'LICENSE', 'PKG-INFO', 'build_backend/verify_hub_build.py', 'src/verify_hub/__init__.py', 'src/verify_hub/client.py', 'src/verify_hub/py.typed', 'src/verify_hub/types.py'];
    if (existsSync(join(PY, 'CHANGELOG.md'))) expected.push('CHANGELOG.md');
    expect(sdist).toEqual(expected.map((f) => `${dist}/${f}`).sort());
    const metadata = list(['import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())', join(out, `${dist}-py3-none-any.whl`), `${dist}.dist-info/licenses/LICENSE`]);
    expect(metadata.join('\n')).toContain('verify-hub contributors');
  });
});
