#!/usr/bin/env node
'use strict';
// The second half of `npm run release:version`, after `changeset version` has bumped the packages and
// written their CHANGELOG.md files:
// - the Python client's pyproject.toml takes the version changesets gave clients/python/package.json;
// - .changeset/last-release.json records the versions: the commit that changes it (the release commit)
//   is where scripts/check-changesets.js starts looking for changes that need a changeset;
// - package-lock.json takes the new workspace versions.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { workspaces } = require('./workspaces');

const root = process.cwd();
const LAST_RELEASE = path.join('.changeset', 'last-release.json');

function syncPyproject(dir, version) {
  const file = path.join(root, dir, 'pyproject.toml');
  const text = fs.readFileSync(file, 'utf8');
  const project = /^\[project\]$[\s\S]*?^version = "([^"]*)"$/m;
  if (!project.test(text)) throw new Error(`${file}: no version = "..." line in [project]`);
  fs.writeFileSync(file, text.replace(project, (block, old) => block.replace(`version = "${old}"`, `version = "${version}"`)));
}

function main() {
  const packages = workspaces(root);
  for (const p of packages) if (fs.existsSync(path.join(root, p.dir, 'pyproject.toml'))) syncPyproject(p.dir, p.version);
  const versions = Object.fromEntries(packages.map((p) => [p.name, p.version]).sort(([a], [b]) => a.localeCompare(b)));
  const record = {
    about: 'Written by `npm run release:version`. The last commit that changed this file is the release: scripts/check-changesets.js wants a changeset for every published package changed since then.',
    versions,
  };
  fs.writeFileSync(path.join(root, LAST_RELEASE), JSON.stringify(record, null, 2) + '\n');
  if (!process.argv.includes('--no-lockfile')) execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  console.log(`released versions recorded in ${LAST_RELEASE}: ${Object.entries(versions).map(([n, v]) => `${n}@${v}`).join(', ')}`);
}

main();
