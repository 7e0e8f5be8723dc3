import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The versioning rules of .changeset/config.json, checked against the workspaces as they are: the CLI,
 * everything it is built from and the Zapier app move together (the image carries the CLI's version);
 * the Python client's pyproject.toml carries the version changesets keeps for it.
 */
const ROOT = join(__dirname, '..', '..');
const { workspaces } = require(join(ROOT, 'scripts', 'workspaces.js')) as {
  workspaces: (root: string) => { dir: string; name: string; version: string; private: boolean; manifest: { dependencies?: Record<string, string> } }[];
};
const config = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8')) as { fixed: string[][]; privatePackages: { version: boolean; tag: boolean }; access: string };
const packages = workspaces(ROOT);
const byName = new Map(packages.map((p) => [p.name, p]));

/** The workspace packages `name` needs at run time, itself included. */
function workspaceClosure(name: string, seen = new Set<string>()): Set<string> {
  seen.add(name);
  for (const dep of Object.keys(byName.get(name)?.manifest.dependencies ?? {})) if (byName.has(dep) && !seen.has(dep)) workspaceClosure(dep, seen);
  return seen;
}

describe('package versions', () => {
  test('the CLI, every workspace it runs on and the Zapier app are one fixed group, at one version', () => {
    const group = config.fixed.find((g) => g.includes('verify-hub'));
    expect(group).toBeDefined();
    // Entries may be globs (`@verify-hub/connector-*`: a new platform joins without editing the config).
    const matches = (name: string) => group!.some((entry) => new RegExp(`^${entry.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')).join('.*')}$`).test(name));
    const expected = new Set([...workspaceClosure('verify-hub'), ...workspaceClosure('verify-hub-zapier')]);
    expect(new Set(packages.map((p) => p.name).filter(matches))).toEqual(expected);
    expect(new Set([...expected].map((name) => byName.get(name)!.version)).size).toBe(1);
  });

  test('the JS client, the n8n node and the Python client version on their own', () => {
    const fixed = new Set(config.fixed.flat());
    for (const name of ['@verify-hub/client', 'n8n-nodes-verify-hub', 'verify-hub-client']) {
      expect(byName.has(name)).toBe(true);
      expect(fixed.has(name)).toBe(false);
    }
  });

  test("the Python client's pyproject.toml holds the version of clients/python/package.json, which npm never publishes", () => {
    const python = packages.find((p) => p.dir === 'clients/python')!;
    expect(python.private).toBe(true);
    expect(config.privatePackages).toEqual({ version: true, tag: false });
    const pyproject = readFileSync(join(ROOT, 'clients', 'python', 'pyproject.toml'), 'utf8');
    expect(/^\[project\][\s\S]*?^version = "([^"]+)"$/m.exec(pyproject)?.[1]).toBe(python.version);
  });
});

test('the README links LICENSE, SECURITY.md and CONTRIBUTING.md, and they are there', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const file of ['LICENSE', 'SECURITY.md', 'CONTRIBUTING.md']) {
    expect(readme).toContain(`](${file})`);
    expect(readFileSync(join(ROOT, file), 'utf8').length).toBeGreaterThan(500);
  }
  expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} verify-hub contributors\n/);
});
