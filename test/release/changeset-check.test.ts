import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * scripts/check-changesets.js (what .ci/run runs) on a small git repository laid out like ours: two
 * workspaces, the image's Dockerfile, a release record. Each test changes something and runs the check.
 */
const CHECK = join(__dirname, '..', '..', 'scripts', 'check-changesets.js');

let repo: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });

function write(file: string, text: string): void {
  mkdirSync(dirname(join(repo, file)), { recursive: true });
  writeFileSync(join(repo, file), text);
}

function commit(message: string): void {
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', message);
}

function check(): { code: number | null; out: string } {
  const result = spawnSync(process.execPath, [CHECK], { cwd: repo, encoding: 'utf8' });
  return { code: result.status, out: result.stdout + result.stderr };
}

const changeset = (names: string[]) => `---\n${names.map((n) => `"${n}": patch`).join('\n')}\n---\n\nSomething changed.\n`;

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'changeset-check-'));
  git('init', '-q', '-b', 'main');
  write('package.json', JSON.stringify({ name: 'root', private: true, workspaces: ['clients/js', 'cli', 'connectors/*'] }));
  write('clients/js/package.json', JSON.stringify({ name: '@verify-hub/client', version: '0.1.0' }));
  write('clients/js/src/index.ts', 'export const a = 1;\n');
  write('cli/package.json', JSON.stringify({ name: 'verify-hub', version: '0.1.0' }));
  write('connectors/n8n/package.json', JSON.stringify({ name: 'n8n-nodes-verify-hub', version: '0.1.0' }));
  write('deploy/Dockerfile', 'FROM scratch\n');
  write('deploy/smoke.sh', 'echo\n');
  write('.changeset/config.json', '{}');
  write('.changeset/README.md', 'changesets\n');
  write('.changeset/last-release.json', '{"versions":{}}\n');
  commit('release 0.1.0');
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('the changeset check', () => {
  test('passes when nothing published changed since the release commit (tests, docs outside packages, deploy scripts)', () => {
    write('test/x.test.ts', 'test\n');
    write('deploy/smoke.sh', 'echo changed\n');
    commit('tests');
    const { code, out } = check();
    expect(out).toMatch(/changesets: ok, 0 published package\(s\) changed/);
    expect(code).toBe(0);
  });

  test('a committed change to clients/js without a changeset fails, naming the package, the file and what to write', () => {
    write('clients/js/src/index.ts', 'export const a = 2;\n');
    commit('client change');
    const { code, out } = check();
    expect(code).toBe(1);
    expect(out).toContain('@verify-hub/client: clients/js/src/index.ts');
    expect(out).toContain('npx changeset');
    expect(out).toContain('---\n"@verify-hub/client": patch\n---');
    expect(out).not.toContain('"verify-hub": patch');
  });

  test('uncommitted and untracked files count too', () => {
    write('connectors/n8n/src/new.ts', 'x\n');
    const { code, out } = check();
    expect(code).toBe(1);
    expect(out).toContain('n8n-nodes-verify-hub: connectors/n8n/src/new.ts');
  });

  test("the image's files belong to the CLI; a changeset naming only another package does not cover them", () => {
    write('deploy/Dockerfile', 'FROM scratch\nLABEL a=b\n');
    write('.changeset/other.md', changeset(['@verify-hub/client']));
    commit('image change');
    const { code, out } = check();
    expect(code).toBe(1);
    expect(out).toContain('verify-hub: deploy/Dockerfile');
    write('.changeset/image.md', changeset(['verify-hub']));
    expect(check().code).toBe(0);
  });

  test('passes once a pending changeset names every changed package', () => {
    write('clients/js/src/index.ts', 'export const a = 2;\n');
    write('cli/src/main.ts', 'x\n');
    commit('two packages');
    write('.changeset/one.md', changeset(['@verify-hub/client']));
    const half = check();
    expect(half.code).toBe(1);
    expect(half.out).toContain('verify-hub: cli/src/main.ts');
    expect(half.out).not.toContain('@verify-hub/client:');
    write('.changeset/two.md', changeset(['verify-hub']));
    const { code, out } = check();
    expect(out).toMatch(/changesets: ok, 2 published package\(s\) changed/);
    expect(code).toBe(0);
  });

  test('a changeset covers the changes made before it, not a later change to the same package', () => {
    write('clients/js/src/index.ts', 'export const a = 2;\n');
    write('.changeset/first.md', changeset(['@verify-hub/client']));
    commit('client change with its changeset');
    expect(check().code).toBe(0);
    write('clients/js/src/index.ts', 'export const a = 3;\n');
    commit('another client change, no changeset');
    const { code, out } = check();
    expect(code).toBe(1);
    expect(out).toMatch(/@verify-hub\/client: clients\/js\/src\/index\.ts \(last changed in [0-9a-f]{10}; its changesets \(\.changeset\/first\.md\) are older than that change\)/);
    // Naming it in a later commit (a new changeset, or the old one edited) covers it.
    write('.changeset/second.md', changeset(['@verify-hub/client']));
    commit('its changeset');
    expect(check().code).toBe(0);
    // An uncommitted change needs an uncommitted changeset.
    write('clients/js/src/index.ts', 'export const a = 4;\n');
    expect(check().out).toContain('(uncommitted; its changesets');
  });

  test('the next release commit (it changes last-release.json) starts the count again; CHANGELOG.md files never count', () => {
    write('clients/js/src/index.ts', 'export const a = 2;\n');
    write('.changeset/one.md', changeset(['@verify-hub/client']));
    commit('change');
    // What `npm run release:version` does: consumes the changesets, writes changelogs and the record.
    rmSync(join(repo, '.changeset/one.md'));
    write('clients/js/package.json', JSON.stringify({ name: '@verify-hub/client', version: '0.1.1' }));
    write('.changeset/last-release.json', '{"versions":{"@verify-hub/client":"0.1.1"}}\n');
    commit('release');
    write('clients/js/CHANGELOG.md', '# @verify-hub/client\n');
    commit('changelog typo');
    const { code, out } = check();
    expect(out).toMatch(/changesets: ok, 0 published package\(s\) changed/);
    expect(code).toBe(0);
  });

  test('a changeset without front matter, or no release record, is an error that says so', () => {
    write('.changeset/broken.md', 'no front matter\n');
    const broken = check();
    expect(broken.code).toBe(2);
    expect(broken.out).toContain('.changeset/broken.md: no front matter');
    rmSync(join(repo, '.changeset/broken.md'));
    rmSync(join(repo, '.changeset/last-release.json'));
    const none = check();
    expect(none.code).toBe(2);
    expect(none.out).toContain('.changeset/last-release.json is missing');
  });
});
