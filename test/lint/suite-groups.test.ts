import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
const { groupOf, laneOf, suitePaths } = require('../setup/suite-groups') as { groupOf: (path: string) => string; laneOf: (path: string) => string | undefined; suitePaths: (rootDir: string) => string[] };
const { inProcessSuites } = require('../setup/quick-bundles') as { inProcessSuites: (rootDir: string) => string[] };
const Sequencer = require('../setup/sequencer') as new (options: { globalConfig: { maxWorkers: number } }) => { sort(tests: SortedTest[]): Promise<SortedTest[]> };
interface SortedTest { path: string; duration?: number; context: { config: { rootDir: string; cache: boolean; cacheDirectory: string; id: string }; hasteFS: { getSize(): number } } }

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

describe('suite groups (test/setup/suite-groups.js)', () => {
  it('no in-process suite (quick loop or scale) starts a process of its own: each such suite is in the spawns or machine group', () => {
    const all = suitePaths(ROOT);
    expect(all.length).toBeGreaterThan(100);
    const self = relative(ROOT, __filename); // its patterns name what they look for
    const misplaced = all.filter((path) => path !== self && ['in-process', 'scale'].includes(groupOf(path)) && STARTS_A_PROCESS.some((pattern) => pattern.test(readFileSync(join(ROOT, path), 'utf8'))));
    expect(misplaced).toEqual([]);
  });

  it('a suite that names its group in its file name is in that group', () => {
    expect(groupOf('test/newplatform/acceptance.spawns.test.ts')).toBe('spawns');
    expect(groupOf('test/newplatform/failover.machine.test.ts')).toBe('machine');
    expect(groupOf('test/newplatform/connector.test.ts')).toBe('in-process');
  });

  it('the scale suites are listed by path, and left out of the quick loop only', () => {
    const { scale } = require('../setup/suite-groups') as { scale: string[] };
    const all = new Set(suitePaths(ROOT));
    expect(scale.filter((path) => !all.has(path))).toEqual([]); // a renamed suite would drop out of the group silently
    expect(scale.map(groupOf)).toEqual(scale.map(() => 'scale'));
    const inQuickLoop = new Set(inProcessSuites(ROOT));
    const quick = (path: string) => inQuickLoop.has(path);
    expect(scale.filter(quick)).toEqual([]);
    expect(quick('test/sync-jobs/run-transitions.test.ts')).toBe(true);
    expect(scale.map(laneOf)).toEqual(scale.map(() => undefined));
  });

  it("a platform's acceptance suite takes a slot of the acceptance lane, a machine suite the machine lane's", () => {
    expect(laneOf('test/newplatform/acceptance.spawns.test.ts')).toBe('acceptance');
    expect(laneOf('test/newplatform/failover.machine.test.ts')).toBe('machine');
    expect(laneOf('test/e2e/dashboard.test.ts')).toBe('machine');
    expect(laneOf('test/newplatform/serve.spawns.test.ts')).toBeUndefined();
    expect(laneOf('test/newplatform/connector.test.ts')).toBeUndefined();
  });

  it('every suite is ordered once, and each lane starts at once with its next suite placed as a slot frees', async () => {
    const context = { config: { rootDir: ROOT, cache: false, cacheDirectory: join(ROOT, 'no-such-cache'), id: 'sequencer-test' }, hasteFS: { getSize: () => 1 } };
    const all = suitePaths(ROOT).map((path) => ({ path: join(ROOT, path), context }));
    const ordered = await new Sequencer({ globalConfig: { maxWorkers: 4 } }).sort([...all]);
    expect(new Set(ordered).size).toBe(all.length);
    const lanes = ordered.map((test) => laneOf(relative(ROOT, test.path)));
    // Both acceptance slots and the machine slot are taken by the first suites handed out.
    expect(lanes.slice(0, 3).sort()).toEqual(['acceptance', 'acceptance', 'machine']);
    // The last lane suite comes before the last of the others: no lane is left to run alone at the end.
    expect(lanes.lastIndexOf('machine')).toBeLessThan(ordered.length - 1);
    expect(lanes.lastIndexOf('acceptance')).toBeLessThan(ordered.length - 1);
  });
});
