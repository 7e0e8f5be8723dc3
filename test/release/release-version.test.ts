import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * `npm run release:version` (changeset version, then scripts/release-version.js) on a copy of this
 * repository's manifests and changeset config, with two known changesets in place of the pending ones:
 * the right packages move, the fixed group together, the Python client's pyproject.toml follows, each
 * bumped package gets its CHANGELOG.md entry, and the release is recorded for the changeset check.
 */
const ROOT = join(__dirname, '..', '..');
const { workspaces } = require(join(ROOT, 'scripts', 'workspaces.js')) as { workspaces: (root: string) => { dir: string; name: string; version: string }[] };

let copy: string;
const read = (file: string) => readFileSync(join(copy, file), 'utf8');
const versionOf = (dir: string) => (JSON.parse(read(`${dir}/package.json`)) as { version: string }).version;
const bump = (version: string, part: 'minor' | 'patch') => {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  return part === 'minor' ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
};

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'release-version-'));
  const files = ['package.json', ...workspaces(ROOT).flatMap((p) => [`${p.dir}/package.json`]), 'clients/python/pyproject.toml', '.changeset/config.json', '.changeset/last-release.json', 'scripts/release-version.js', 'scripts/workspaces.js'];
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(join(copy, '.changeset', 'client-fix.md'), '---\n"@verify-hub/client": patch\n---\n\nThe client fix.\n');
  writeFileSync(join(copy, '.changeset', 'core-feature.md'), '---\n"@verify-hub/core": minor\n"verify-hub-client": patch\n---\n\nThe core feature.\n');
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

test('bumps the named packages and the fixed group together, writes their changelogs and the release record', () => {
  const before = Object.fromEntries(workspaces(copy).map((p) => [p.dir, p.version]));
  execFileSync(process.execPath, [require.resolve('@changesets/cli/bin.js'), 'version'], { cwd: copy, encoding: 'utf8', stdio: 'pipe' });
  execFileSync(process.execPath, ['scripts/release-version.js', '--no-lockfile'], { cwd: copy, encoding: 'utf8', stdio: 'pipe' });

  // The fixed group (CLI, what it is built from, the Zapier app) moves together, by the largest bump.
  const fixed = ['cli', 'core', 'engine', 'sync-jobs', 'webhooks-in', 'connectors/file', 'connectors/hubspot', 'connectors/mailchimp', 'connectors/mcp', 'connectors/zapier'];
  for (const dir of fixed) expect([dir, versionOf(dir)]).toEqual([dir, bump(before.cli!, 'minor')]);
  expect(versionOf('clients/js')).toBe(bump(before['clients/js']!, 'patch'));
  expect(versionOf('clients/python')).toBe(bump(before['clients/python']!, 'patch'));
  expect(versionOf('connectors/n8n')).toBe(before['connectors/n8n']); // named by neither changeset
  expect(read('clients/python/pyproject.toml')).toMatch(new RegExp(`^version = "${versionOf('clients/python').replace(/\./g, '\\.')}"$`, 'm'));
  // Dependents' ranges follow.
  expect((JSON.parse(read('cli/package.json')) as { dependencies: Record<string, string> }).dependencies['@verify-hub/core']).toBe(versionOf('core'));

  expect(read('core/CHANGELOG.md')).toMatch(new RegExp(`## ${versionOf('core').replace(/\./g, '\\.')}\\n\\n### Minor Changes\\n\\n- The core feature\\.`));
  expect(read('clients/js/CHANGELOG.md')).toContain('- The client fix.');
  expect(read('clients/python/CHANGELOG.md')).toContain('- The core feature.');
  expect(existsSync(join(copy, 'connectors/n8n/CHANGELOG.md'))).toBe(false);
  expect(readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md'))).toEqual([]);
  const record = JSON.parse(read('.changeset/last-release.json')) as { versions: Record<string, string> };
  expect(record.versions).toMatchObject({ 'verify-hub': versionOf('cli'), '@verify-hub/client': versionOf('clients/js'), 'verify-hub-client': versionOf('clients/python') });
}, 60_000);
