import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
const { groupOf } = require('../setup/suite-groups') as { groupOf: (path: string) => string };

const ROOT = join(__dirname, '..', '..');

/** What starts a process of its own: node's child_process, or a test helper built on it. */
const STARTS_A_PROCESS = [
  /from 'node:child_process'|require\('node:child_process'\)|from 'child_process'/,
  // The hub harness spawns serve, workers or the CLI when told to (its default is all in process).
  /from '[./]*\/?setup\/hub-harness'[\s\S]*(serve: 'process'|workers: \d|\bstartWorker\b|\bcli\()/,
  /from '[./]*\/?(sync-jobs\/)?crash-harness'/,
  /from '[./]*setup\/redis-(cluster|sentinel)'/,
  /\bserveProcess\b/,
];

function suites(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'lint-fixtures' ? [] : suites(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('suite groups (test/setup/suite-groups.js)', () => {
  it('no suite of the quick loop starts a process of its own: each such suite is in the spawns or machine group', () => {
    const all = suites(join(ROOT, 'test'));
    expect(all.length).toBeGreaterThan(100);
    const self = relative(ROOT, __filename); // its patterns name what they look for
    const misplaced = all.filter((path) => path !== self && groupOf(path) === 'in-process' && STARTS_A_PROCESS.some((pattern) => pattern.test(readFileSync(join(ROOT, path), 'utf8'))));
    expect(misplaced).toEqual([]);
  });

  it('a suite that names its group in its file name is in that group', () => {
    expect(groupOf('test/newplatform/acceptance.spawns.test.ts')).toBe('spawns');
    expect(groupOf('test/newplatform/failover.machine.test.ts')).toBe('machine');
    expect(groupOf('test/newplatform/connector.test.ts')).toBe('in-process');
  });
});
