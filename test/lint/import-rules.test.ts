import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';

/**
 * The import rules of DESIGN.md §3 (eslint.import-rules.js) fire: each fixture in test/lint-fixtures is
 * linted with the repository's own config as if it were the file its first line names, and must give
 * the message its second line names, for its one wrong import (or none, for "clean").
 */
const REPO = join(__dirname, '..', '..');
const FIXTURES = join(REPO, 'test', 'lint-fixtures');
const RULE = '@typescript-eslint/no-restricted-imports';

interface Fixture {
  name: string;
  lintAs: string;
  expected: string;
  code: string;
}

function readFixture(name: string): Fixture {
  const code = readFileSync(join(FIXTURES, name), 'utf8');
  const lintAs = /^\/\/ lint as: (\S+)$/m.exec(code)?.[1];
  const expected = /^\/\/ expect: (.+)$/m.exec(code)?.[1];
  if (!lintAs || !expected) throw new Error(`${name}: needs "// lint as: <path>" and "// expect: <message part or clean>"`);
  return { name, lintAs, expected, code };
}

const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.ts')).sort().map(readFixture);

describe('import rules (DESIGN.md §3) as lint rules', () => {
  // The config is handed over already loaded: ESLint would load eslint.config.js with a dynamic import, which jest's VM refuses.
  const eslint = new ESLint({ cwd: REPO, overrideConfigFile: true, overrideConfig: require(join(REPO, 'eslint.config.js')) });

  it('has a wrong import for every layer and a legal one beside it', () => {
    const layers = (kind: 'clean' | 'wrong') => new Set(fixtures.filter((f) => (f.expected === 'clean') === (kind === 'clean')).map((f) => f.lintAs.split('/')[0]));
    expect([...layers('wrong')].sort()).toEqual(['connectors', 'core', 'engine', 'sync-jobs', 'webhooks-in']);
    expect([...layers('clean')].sort()).toEqual(['connectors', 'core', 'webhooks-in']);
  });

  it.each(fixtures.map((f) => [f.name, f] as const))('%s', async (_name, fixture) => {
    const [result] = await eslint.lintText(fixture.code, { filePath: join(REPO, fixture.lintAs) });
    const messages = result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
    if (fixture.expected === 'clean') {
      expect(messages).toEqual([]);
    } else {
      // One wrong import, refused by the import rule (a path may break two of its patterns at once).
      expect(messages).toContainEqual(expect.stringContaining(fixture.expected));
      expect(messages.every((m) => m.startsWith(`${RULE}:`) && m.includes(fixture.code.split('\n')[2]!.split("'")[1]!))).toBe(true);
      expect(result!.errorCount).toBe(messages.length);
    }
  });

  it('keeps the fixtures out of the normal `npm run lint`, and the sources in it', async () => {
    expect(await eslint.isPathIgnored(join(FIXTURES, fixtures[0]!.name))).toBe(true);
    expect(await eslint.isPathIgnored(join(REPO, 'webhooks-in', 'src', 'app.ts'))).toBe(false);
  });
});
