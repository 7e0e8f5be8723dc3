/**
 * How `npm run test:quick` cuts its suites into bundles (test/setup/quick-bundles.js): every in-process
 * suite exactly once, in path order so a platform's suites share a bundle, the bundles about equal in
 * recorded time; suites that import nock run alone; bundles are rewritten only when they change.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const { bundle, writeBundles, BUNDLE_DIR } = require('../setup/quick-bundles') as {
  bundle: (paths: string[], seconds: Record<string, number>, count: number) => string[][];
  writeBundles: (rootDir: string, count: number) => { bundles: string[]; alone: string[] };
  BUNDLE_DIR: string;
};

describe('quick-loop bundles', () => {
  it('cuts the suites in path order into bundles of about equal recorded time', () => {
    const paths = Array.from({ length: 40 }, (_, i) => `test/p${String(i).padStart(2, '0')}.test.ts`);
    const seconds = Object.fromEntries(paths.map((path, i) => [path, 1 + (i % 7)]));
    const bundles = bundle(paths, seconds, 6);
    expect(bundles).toHaveLength(6);
    expect(bundles.flat()).toEqual(paths);
    const total = (group: string[]) => group.reduce((sum, path) => sum + seconds[path]!, 0);
    const ideal = paths.reduce((sum, path) => sum + seconds[path]!, 0) / 6;
    // A cut falls between two suites: a bundle is off its share by at most the longest suite (7 s).
    for (const group of bundles) expect(Math.abs(total(group) - ideal)).toBeLessThanOrEqual(7);
  });

  it('gives a suite longer than a share a bundle of its own rather than an empty one', () => {
    const bundles = bundle(['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts'], { 'test/a.test.ts': 1, 'test/b.test.ts': 30, 'test/c.test.ts': 1 }, 3);
    expect(bundles).toEqual([['test/a.test.ts'], ['test/b.test.ts'], ['test/c.test.ts']]);
  });

  describe('written for a checkout', () => {
    const root = mkdtempSync(join(tmpdir(), 'vh-bundles-'));
    const suite = (path: string, text = "it('works', () => undefined);\n") => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    beforeAll(() => {
      suite('test/setup/suite-durations.json', JSON.stringify({ 'test/a/one.test.ts': 4, 'test/a/two.test.ts': 4, 'test/b/three.test.ts': 4 }));
      suite('test/a/one.test.ts');
      suite('test/a/two.test.ts');
      suite('test/b/three.test.ts');
      suite('test/b/mocked.test.ts', "import nock from 'nock';\n");
      suite('test/b/worker.spawns.test.ts');
      suite('test/lint-fixtures/x.test.ts');
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('bundles the in-process suites, runs nock users alone, and leaves the rest out', () => {
      const { bundles, alone } = writeBundles(root, 2);
      expect(alone).toEqual(['test/b/mocked.test.ts']);
      expect(bundles).toEqual([`${BUNDLE_DIR}/bundle-01.test.js`, `${BUNDLE_DIR}/bundle-02.test.js`]);
      const sources = bundles.map((file) => readFileSync(join(root, file), 'utf8'));
      const required = sources.flatMap((source) => [...source.matchAll(/bundledSuite\("([^"]+)"/g)].map((m) => m[1]));
      expect(required).toEqual(['test/a/one.test.ts', 'test/a/two.test.ts', 'test/b/three.test.ts']);
      for (const source of sources) expect(source).toMatch(/^collecting\(\);$/m);
    });

    it('rewrites only the bundles that change and removes those no longer made', () => {
      const first = writeBundles(root, 3).bundles;
      const written = first.map((file) => statSync(join(root, file)).mtimeMs);
      const again = writeBundles(root, 3).bundles;
      expect(again.map((file) => statSync(join(root, file)).mtimeMs)).toEqual(written);
      writeBundles(root, 1);
      expect(() => statSync(join(root, first[2]!))).toThrow();
    });
  });
});
