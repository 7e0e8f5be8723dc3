import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registeredPlatforms } from '../../cli/src/platforms';

/**
 * deploy/Dockerfile copies what is installed, not a list of names (deploy/image-files.js): a platform
 * added under connectors/ (and to the CLI's dependencies) goes into the image without editing it.
 */
const ROOT = join(__dirname, '..', '..');
const imageFiles = require(join(ROOT, 'deploy', 'image-files.js')) as { runtimeWorkspaces(): { dir: string; name: string }[] };
const platformDirs = () => registeredPlatforms().map((module) => `connectors/${module.id}`);

describe('the image recipe and what it copies', () => {
  it('names no platform: deploy/Dockerfile has no line of its own for any installed one', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    expect(registeredPlatforms().length).toBeGreaterThan(0);
    for (const dir of platformDirs()) expect([dir, dockerfile.includes(dir)]).toEqual([dir, false]);
  });

  it("runs on the CLI's workspaces: every installed platform's, and nothing only other packages need", () => {
    const dirs = imageFiles.runtimeWorkspaces().map((workspace) => workspace.dir);
    expect(dirs).toEqual(expect.arrayContaining(['cli', 'core', 'engine', 'sync-jobs', 'webhooks-in', ...platformDirs()]));
    for (const other of ['connectors/n8n', 'connectors/zapier', 'clients/js']) expect(dirs).not.toContain(other);
  });

  it("picks the lockfile and every workspace's package.json for the dependency layers", () => {
    const out = mkdtempSync(join(tmpdir(), 'vh-image-files-'));
    try {
      require('node:child_process').execFileSync(process.execPath, [join(ROOT, 'deploy', 'image-files.js'), 'manifests', out]);
      for (const file of ['package.json', 'package-lock.json', 'cli/package.json', 'core/package.json', ...platformDirs().map((dir) => `${dir}/package.json`)]) {
        expect([file, existsSync(join(out, file))]).toEqual([file, true]);
      }
      expect(existsSync(join(out, 'core', 'src'))).toBe(false);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
