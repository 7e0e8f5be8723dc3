/**
 * The quick loop's bundles (test/setup/bundled-suite.js) keep their suites apart as jest's per-file
 * environment does: a suite that leaves a handle open fails by name, the next one finds `process.env`
 * as the bundle found it, and a suite that opens a handle while its tests are collected fails its
 * bundle. Each case is a bundle of fixtures (test/lint-fixtures/bundles) run by jest in a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';

const ROOT = resolve(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'lint-fixtures', 'bundles');
const { BUNDLE_DIR } = require('../setup/quick-bundles') as { BUNDLE_DIR: string };

/** Runs a bundle of the named fixtures with jest; its exit status and output. */
function runBundle(fixtures: string[]): { status: number | null; output: string; passed: string[] } {
  const dir = join(ROOT, BUNDLE_DIR);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `fixture-${randomUUID().slice(0, 8)}.test.js`);
  const lines = fixtures.map((name) => `bundledSuite(${JSON.stringify(`fixtures/${name}`)}, ${JSON.stringify(join(FIXTURES, `${name}.ts`))});`);
  writeFileSync(file, [`const { bundledSuite, collecting } = require(${JSON.stringify(join(ROOT, 'test/setup/bundled-suite.js'))});`, 'collecting();', ...lines, ''].join('\n'));
  const results = `${file}.json`;
  try {
    const jest = require.resolve('jest/bin/jest');
    const run = spawnSync(process.execPath, [jest, '--ci', '--runInBand', '--json', '--outputFile', results, '--testMatch', file, '--testPathIgnorePatterns', '/node_modules/', '--', file], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, VHTEST_HANDLE_GRACE_MS: '300', VHTEST_FIXTURE_KEPT: 'from the run', VHTEST_SUITE_CPU: '' },
    });
    const report = JSON.parse(readFileSync(results, 'utf8')) as { testResults: { assertionResults: { title: string; status: string }[] }[] };
    const passed = report.testResults.flatMap((suite) => suite.assertionResults.filter((test) => test.status === 'passed').map((test) => test.title));
    return { status: run.status, output: `${run.stdout}${run.stderr}`, passed };
  } finally {
    rmSync(file, { force: true });
    rmSync(results, { force: true });
  }
}

describe('a quick-loop bundle', () => {
  it('fails the suite that left a handle open, by name, and gives the next one process.env as found', () => {
    const { status, output, passed } = runBundle(['leaves-a-server', 'finds-as-found']);
    expect(output).toContain('fixtures/leaves-a-server left handles open after its last hook (TCPServerWrap x1)');
    expect(output).not.toMatch(/fixtures\/finds-as-found left handles open/);
    expect(passed).toEqual(['starts a server and does not close it', 'finds process.env as the bundle found it']);
    expect(status).toBe(1);
  });

  it('fails when a suite opens a handle while jest collects its tests', () => {
    const { status, output } = runBundle(['opens-while-collected']);
    expect(output).toContain('a suite of this bundle opened TCPServerWrap x1 while jest collected its tests');
    expect(status).toBe(1);
  });
});
