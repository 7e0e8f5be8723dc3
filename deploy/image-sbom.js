#!/usr/bin/env node
'use strict';
// The image's software bill of materials (CycloneDX): what `npm install --omit=dev --workspace=cli` puts
// in the image (deploy/Dockerfile writes it to /app/sbom.cdx.json), described as the CLI at its version.
// `npm sbom --omit dev --workspace cli` alone is wrong here: it drops every package that is also a
// devDependency of the repository's root (express, yaml and their trees, even @verify-hub/core). So
// this takes npm's full BOM of the lockfile and keeps the CLI's run-time closure, walked in the lockfile
// (dependencies, optional dependencies, required peers; never devDependencies or optional peers).
// Usage: node deploy/image-sbom.js [out-file]   (stdout without one)
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const WORKSPACE = 'cli';

/** Where npm would find `name` from the package at `from` (a lockfile key): nearest node_modules up. */
function resolve(packages, from, name) {
  for (let at = from; ; ) {
    const key = `${at ? `${at}/` : ''}node_modules/${name}`;
    if (packages[key]) return packages[key].link ? packages[key].resolved : key;
    if (!at) return undefined;
    const up = at.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '');
    at = up === at ? '' : up; // a workspace folder ("connectors/file") looks in the root's node_modules next
  }
}

/** The lockfile keys of `workspace` and everything it needs at run time. */
function runtimeClosure(lock, workspace) {
  const { packages } = lock;
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const entry = packages[key];
    const optionalPeers = entry.peerDependenciesMeta ?? {};
    const wanted = [
      ...Object.keys(entry.dependencies ?? {}).map((name) => [name, true]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => [name, false]),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers[name]?.optional).map((name) => [name, true]),
    ];
    for (const [name, required] of wanted) {
      const found = resolve(packages, key, name);
      if (found) visit(found);
      else if (required) throw new Error(`package-lock.json: ${name}, needed by ${key || 'the root'}, is not in the lockfile`);
    }
  };
  visit(workspace);
  return seen;
}

function refOf(packages, key) {
  const entry = packages[key];
  const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `${name}@${entry.version}`;
}

function imageSbom() {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const cli = lock.packages[WORKSPACE];
  const closure = runtimeClosure(lock, WORKSPACE);
  const keep = new Set([...closure].map((key) => refOf(lock.packages, key)));
  const sbom = JSON.parse(execFileSync('npm', ['sbom', '--package-lock-only', '--sbom-format', 'cyclonedx', '--sbom-type', 'application'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }));
  const ref = `${cli.name}@${cli.version}`;
  sbom.metadata.component = {
    'bom-ref': ref,
    type: 'application',
    name: cli.name,
    version: cli.version,
    description: 'The verify-hub command: the verify-hub container image',
    purl: `pkg:npm/${cli.name}@${cli.version}`,
    licenses: [{ license: { id: cli.license } }],
  };
  // The CLI is the BOM's subject, not one of its components; npm names workspaces by folder ("file").
  sbom.components = sbom.components.filter((c) => keep.has(c['bom-ref']) && c['bom-ref'] !== ref);
  for (const c of sbom.components) c.name = c['bom-ref'].slice(0, c['bom-ref'].lastIndexOf('@'));
  sbom.dependencies = sbom.dependencies.filter((d) => keep.has(d.ref)).map((d) => ({ ref: d.ref, dependsOn: d.dependsOn.filter((r) => keep.has(r)) }));
  const missing = [...keep].filter((r) => r !== ref && !sbom.components.some((c) => c['bom-ref'] === r));
  if (missing.length > 0) throw new Error(`npm sbom left out ${missing.join(', ')}`);
  return sbom;
}

if (require.main === module) {
  const text = JSON.stringify(imageSbom(), null, 2) + '\n';
  if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}

module.exports = { imageSbom, runtimeClosure };
