#!/usr/bin/env node
'use strict';
// What deploy/Dockerfile copies, from what is installed rather than from a list of names, so a new
// platform (a workspace under connectors/ that the CLI depends on) goes into the image by itself:
//   node deploy/image-files.js manifests <out>  the lockfile, the root's and every workspace's package.json
//   node deploy/image-files.js runtime <out>    what each workspace the CLI runs on publishes (its package.json
//                                               "files": dist without source maps, bin, openapi.yaml ...)
const fs = require('node:fs');
const path = require('node:path');
const { workspaces } = require('../scripts/workspaces');

const root = path.resolve(__dirname, '..');

/** The CLI's workspace and every workspace it depends on in production, directly or not. */
function runtimeWorkspaces() {
  const all = workspaces(root);
  const byName = new Map(all.map((workspace) => [workspace.name, workspace]));
  const found = new Map();
  const visit = (workspace) => {
    if (found.has(workspace.dir)) return;
    found.set(workspace.dir, workspace);
    for (const dependency of Object.keys(workspace.manifest.dependencies ?? {})) if (byName.has(dependency)) visit(byName.get(dependency));
  };
  visit(all.find((workspace) => workspace.dir === 'cli'));
  return [...found.values()];
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true, filter: (source) => !source.endsWith('.map') });
}

function manifests(out) {
  for (const file of ['package.json', 'package-lock.json']) copy(path.join(root, file), path.join(out, file));
  for (const { dir } of workspaces(root)) copy(path.join(root, dir, 'package.json'), path.join(out, dir, 'package.json'));
}

function runtime(out) {
  for (const { dir, manifest } of runtimeWorkspaces()) {
    for (const entry of manifest.files ?? []) {
      // Documentation is not in the build context (deploy/Dockerfile.dockerignore) and not run.
      if (entry.startsWith('!') || entry.endsWith('.md')) continue;
      const from = path.join(root, dir, entry);
      if (!fs.existsSync(from)) throw new Error(`${dir}/${entry} is missing: run npm run build first`);
      copy(from, path.join(out, dir, entry));
    }
  }
}

if (require.main === module) {
  const [what, out] = process.argv.slice(2);
  if (!out || !['manifests', 'runtime'].includes(what)) {
    console.error('usage: node deploy/image-files.js manifests|runtime <out>');
    process.exit(2);
  }
  (what === 'manifests' ? manifests : runtime)(path.resolve(out));
}

module.exports = { runtimeWorkspaces };
