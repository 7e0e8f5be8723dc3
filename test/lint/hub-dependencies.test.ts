import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** webhooks-in depends on exactly what it imports: no connector listed "just in case" (issue 18). */
const HUB = join(__dirname, '..', '..', 'webhooks-in');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`; relative and node: imports are not packages. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importedPackages(files: string[]): Set<string> {
  const found = new Set<string>();
  for (const file of files) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from\s+|require\(|import\()'([^']+)'/g)) {
      const name = packageOf(specifier!);
      if (name) found.add(name);
    }
  }
  return found;
}

describe('webhooks-in dependencies', () => {
  const manifest = JSON.parse(readFileSync(join(HUB, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const tsconfig = JSON.parse(readFileSync(join(HUB, 'tsconfig.json'), 'utf8')) as { references: { path: string }[] };
  const serverImports = importedPackages(sourceFiles(join(HUB, 'src')));

  it('imports every package it depends on, and depends on every package it imports', () => {
    expect(Object.keys(manifest.dependencies).filter((name) => !serverImports.has(name))).toEqual([]);
    // esbuild is a dev dependency on purpose: it is imported lazily, only to bundle the dashboard from source.
    const listed = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)]);
    expect([...serverImports].filter((name) => !listed.has(name))).toEqual([]);
  });

  it('references (tsc -b) exactly the workspace packages it imports', () => {
    const ours = [...serverImports].filter((name) => name.startsWith('@verify-hub/')).map((name) => name.replace('@verify-hub/', '').replace(/^connector-/, 'connectors/'));
    expect(tsconfig.references.map((r) => r.path.replace(/^\.\.\//, '')).sort()).toEqual(ours.sort());
  });
});
