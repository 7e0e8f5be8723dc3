import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The container image's SBOM (deploy/image-sbom.js, run by deploy/Dockerfile into /app/sbom.cdx.json):
 * CycloneDX from `npm sbom`, naming the CLI at its version, listing what the image installs (the
 * CLI's production dependencies) and nothing only development needs.
 */
const ROOT = join(__dirname, '..', '..');
const { imageSbom } = require(join(ROOT, 'deploy', 'image-sbom.js')) as { imageSbom: () => Sbom };
type Sbom = { bomFormat: string; specVersion: string; metadata: { component: { name: string; version: string; type: string } }; components: { name: string; version: string; 'bom-ref': string; purl: string }[]; dependencies: { ref: string; dependsOn: string[] }[] };
type LockEntry = { version: string; dev?: boolean; devOptional?: boolean; link?: boolean; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const manifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
/** The CLI's workspace and those it runs on, installed platforms included (as deploy/Dockerfile copies them). */
const WORKSPACES_OF_CLI = (require(join(ROOT, 'deploy', 'image-files.js')) as { runtimeWorkspaces(): { dir: string }[] }).runtimeWorkspaces().map((workspace) => workspace.dir);

describe('the image SBOM', () => {
  let sbom: Sbom;
  let refs: Set<string>;
  beforeAll(() => {
    sbom = imageSbom();
    refs = new Set(sbom.components.map((c) => `${c.name}@${c.version}`));
  }, 120_000);

  test('is CycloneDX about the CLI, at its version', () => {
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(sbom.metadata.component).toMatchObject({ name: 'verify-hub', version: manifest('cli').version, type: 'application' });
    expect(new Set(sbom.components.map((c) => c['bom-ref'])).size).toBe(sbom.components.length);
    for (const c of sbom.components) expect(decodeURIComponent(c.purl)).toBe(`pkg:npm/${c.name}@${c.version}`);
  });

  test("lists every production dependency of the CLI and of each workspace it runs on, at the lockfile's version", () => {
    for (const dir of WORKSPACES_OF_CLI) {
      const { name, version, dependencies = {} } = manifest(dir);
      if (dir !== 'cli') expect(refs).toContain(`${name}@${version}`);
      for (const dep of Object.keys(dependencies)) {
        const entry = lock.packages[`${dir}/node_modules/${dep}`] ?? lock.packages[`node_modules/${dep}`]!;
        const resolved = entry.link ? manifest((entry as unknown as { resolved: string }).resolved) : { version: entry.version };
        expect([dir, `${dep}@${resolved.version}`, refs.has(`${dep}@${resolved.version}`)]).toEqual([dir, `${dep}@${resolved.version}`, true]);
      }
    }
    // Packages that are also root devDependencies (npm's own --omit dev drops them): here they are.
    expect(refs).toContain(`express@${lock.packages['node_modules/express']!.version}`);
    expect(refs).toContain(`yaml@${lock.packages['node_modules/yaml']!.version}`);
  });

  test('lists nothing from devDependencies, nor what only the other published packages need', () => {
    // The lockfile marks `dev` what only devDependencies reach; a name@version can also sit at a second,
    // production place in the tree (nested elsewhere): only those that never do count here.
    const refOf = (key: string, e: LockEntry) => `${key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)}@${e.version}`;
    const installed = Object.entries(lock.packages).filter(([key]) => key.includes('node_modules/'));
    const production = new Set(installed.filter(([, e]) => !e.dev).map(([key, e]) => refOf(key, e)));
    const devOnly = installed.filter(([key, e]) => e.dev === true && !production.has(refOf(key, e))).map(([key, e]) => refOf(key, e));
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter((ref) => refs.has(ref))).toEqual([]);
    const names = new Set(sbom.components.map((c) => c.name));
    for (const name of ['jest', 'typescript', 'esbuild', 'eslint', 'ts-node', '@changesets/cli', 'preact', 'smtp-server', 'n8n-workflow', 'zapier-platform-core', '@verify-hub/client', 'n8n-nodes-verify-hub', 'verify-hub-zapier']) {
      expect([name, names.has(name)]).toEqual([name, false]);
    }
  });

  test('every dependency edge stays inside the list', () => {
    const known = new Set([...sbom.components.map((c) => c['bom-ref']), `verify-hub@${manifest('cli').version}`]);
    for (const d of sbom.dependencies) for (const r of [d.ref, ...d.dependsOn]) expect(known).toContain(r);
  });

  test('deploy/Dockerfile writes it into the image and labels the image with the version and the file', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN npm install --omit=dev --workspace=cli[\s\S]*node deploy\/image-sbom\.js sbom\.cdx\.json/);
    expect(dockerfile).toContain('org.opencontainers.image.version="${VERSION}"');
    expect(dockerfile).toContain('io.verify-hub.sbom="/app/sbom.cdx.json"');
    expect(readFileSync(join(ROOT, 'deploy', 'Dockerfile.dockerignore'), 'utf8')).toContain('!deploy/image-sbom.js');
  });
});
