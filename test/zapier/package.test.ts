import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withBuildLock } from '../release/build-lock';

const REPO = join(__dirname, '..', '..');
const PKG_DIR = join(REPO, 'connectors', 'zapier');
const pkg = JSON.parse(readFileSync(join(PKG_DIR, 'package.json'), 'utf8')) as { name: string; main: string; types: string; files: string[] };

/** The files `npm pack` would put in the tarball (`--dry-run`: nothing is written). */
function packedFiles(dir: string): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8' });
  const [report] = JSON.parse(out) as [{ name: string; files: { path: string }[] }];
  return report.files.map((f) => f.path);
}

describe('verify-hub-zapier package', () => {
  let files: string[] = [];
  beforeAll(() => {
    // The package's own build (what the repository's `npm run build` runs for it): git-ignored dist/.
    // tsc -b trusts its tsbuildinfo (kept outside dist/), so a deleted dist/ needs --force.
    // (Under the build lock: test/release/published-files.test.ts builds the same dist/ folders.)
    withBuildLock(() => {
      const force = existsSync(join(PKG_DIR, 'dist', 'index.js')) ? [] : ['--force'];
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', join(PKG_DIR, 'tsconfig.json'), ...force], { cwd: REPO, encoding: 'utf8' });
    });
    files = packedFiles(PKG_DIR);
  }, 300_000); // the build lock may first wait for a whole-repository build

  test('the tarball holds every file its manifest names: main (index.js), the compiled app it loads, the types', () => {
    expect(pkg.main).toBe('index.js');
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', pkg.main, pkg.types]));
    // index.js loads the compiled app: that file, and each file the app requires relatively, ships too.
    const entry = /require\('\.\/([^']+)'\)/.exec(readFileSync(join(PKG_DIR, pkg.main), 'utf8'))?.[1];
    expect(entry).toBe('dist/index.js');
    expect(files).toContain(entry);
    const compiled = readFileSync(join(PKG_DIR, entry!), 'utf8');
    for (const [, rel] of compiled.matchAll(/require\("\.\/([^"]+)"\)/g)) expect(files).toContain(`dist/${rel}.js`);
  });

  test('ships what Zapier runs, not the sources or the tests', () => {
    expect(files.filter((f) => f.startsWith('src/') || f.includes('.test.') || f.endsWith('.tsbuildinfo'))).toEqual([]);
    expect(files.every((f) => pkg.files.some((allowed) => f === allowed || f.startsWith(`${allowed}/`)) || /^(package\.json|README\.md|LICENSE)$/.test(f))).toBe(true);
  });
});
