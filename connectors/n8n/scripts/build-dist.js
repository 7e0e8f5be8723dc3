#!/usr/bin/env node
'use strict';
// The package's build step after `tsc -b` (type check, declarations): writes what n8n loads.
// - The node and the credentials are bundled with esbuild into self-contained CommonJS files, with
//   @verify-hub/core compiled in from its sources: a community node package must have no runtime
//   dependencies (n8n-workflow stays external: n8n provides it).
// - Icons and the codex file are copied next to them, where n8n looks for them.
// - THIRD-PARTY-NOTICES.md lists the npm packages compiled into the bundles, with their licence texts.
// Usage: node scripts/build-dist.js [outDir]   (default dist/; the tests build into a temporary dir)
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');
const { writeNotices } = require('../../../scripts/third-party-notices');

const root = path.join(__dirname, '..');
const src = path.join(root, 'src');
const coreSrc = path.join(root, '..', '..', 'core', 'src');
const outDir = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const ENTRIES = ['nodes/EmailVerification/EmailVerification.node', 'credentials/VerifyHubApi.credentials'];
const ASSET = /\.(svg|png|node\.json)$/;

/**
 * Resolves core to its TypeScript sources, every file marked free of side effects (they only define
 * things), so what the node does not use drops out of the bundle (the logger and pino, for example).
 */
const coreFromSource = {
  name: 'verify-hub-core-from-source',
  setup(build) {
    build.onResolve({ filter: /^@verify-hub\/core$/ }, () => ({ path: path.join(coreSrc, 'index.ts'), sideEffects: false }));
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.startsWith(coreSrc + path.sep)) return undefined;
      const base = path.resolve(path.dirname(args.importer), args.path);
      const file = [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
      return file ? { path: file, sideEffects: false } : undefined;
    });
  },
};

function copyAssets(dir) {
  let copied = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copied += copyAssets(from);
    else if (ASSET.test(entry.name)) {
      const to = path.join(outDir, path.relative(src, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      copied++;
    }
  }
  return copied;
}

async function main() {
  const result = await esbuild.build({
    entryPoints: ENTRIES.map((e) => ({ in: path.join(src, `${e}.ts`), out: e })),
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['n8n-workflow'],
    plugins: [coreFromSource],
    allowOverwrite: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  const notices = writeNotices(result.metafile, path.join(outDir, 'THIRD-PARTY-NOTICES.md'), 'n8n-nodes-verify-hub (dist/)');
  const sizes = Object.entries(result.metafile.outputs).map(([file, o]) => `${path.relative(process.cwd(), file)} ${Math.round(o.bytes / 1024)} KB`);
  console.log(`bundled ${sizes.join(', ')}; copied ${copyAssets(src)} asset(s); notices for ${notices.join(', ')}`);
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
