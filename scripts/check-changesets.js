#!/usr/bin/env node
'use strict';
// CI's changeset check (.ci/run, `npm run changeset:check`): every published package changed since the
// last release must be named by a pending changeset (.changeset/*.md), so its next version and
// CHANGELOG.md say what changed.
// - The last release is the newest commit that changed .changeset/last-release.json (written only by
//   `npm run release:version`): it needs the history (any clone but a shallow one), not tags or a branch.
// - Changed: the files that differ between that commit and the working tree (commits since then,
//   uncommitted edits, new untracked files), except CHANGELOG.md files (the release writes them).
// - A file belongs to the workspace package whose folder holds it; the container image's own files
//   (IMAGE_FILES) belong to the CLI, whose version the image carries.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const { workspaces } = require('./workspaces');

const LAST_RELEASE = '.changeset/last-release.json';
const IMAGE_FILES = { 'deploy/Dockerfile': 'verify-hub', 'deploy/Dockerfile.dockerignore': 'verify-hub', 'deploy/healthcheck.js': 'verify-hub' };

const root = process.cwd();
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

/** The packages each pending changeset names (its front matter: `"package": patch|minor|major`). */
function pendingChangesets() {
  const dir = path.join(root, '.changeset');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((file) => {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const front = /^---\r?\n([\s\S]*?)\r?\n?---/.exec(text);
      if (!front) throw new Error(`.changeset/${file}: no front matter (--- "package": patch ---)`);
      return { file, names: Object.keys(YAML.parse(front[1]) ?? {}) };
    });
}

function changedFiles(base) {
  const tracked = git('diff', '--name-only', '--no-renames', base).split('\n');
  const untracked = git('ls-files', '--others', '--exclude-standard').split('\n');
  return [...new Set([...tracked, ...untracked])].filter((f) => f && path.basename(f) !== 'CHANGELOG.md');
}

function ownerOf(file, packages) {
  if (IMAGE_FILES[file]) return IMAGE_FILES[file];
  const owner = packages.filter((p) => file.startsWith(`${p.dir}/`)).sort((a, b) => b.dir.length - a.dir.length)[0];
  return owner?.name;
}

function main() {
  if (!fs.existsSync(path.join(root, LAST_RELEASE))) throw new Error(`${LAST_RELEASE} is missing: it records the last release (npm run release:version writes it)`);
  const base = git('log', '-1', '--format=%H', '--', LAST_RELEASE).trim();
  if (!base) throw new Error(`no commit has ${LAST_RELEASE}: commit it (the check starts from the commit that last changed it)`);
  if (git('rev-parse', '--is-shallow-repository').trim() === 'true') console.warn(`changesets: this clone is shallow; if ${base.slice(0, 10)} is at its edge, older changes look new (git fetch --unshallow)`);

  const packages = workspaces(root).filter((p) => p.name);
  const changed = new Map();
  for (const file of changedFiles(base)) {
    const owner = ownerOf(file, packages);
    if (owner) changed.set(owner, [...(changed.get(owner) ?? []), file]);
  }
  const changesets = pendingChangesets();
  const named = new Set(changesets.flatMap((c) => c.names));
  const missing = [...changed.keys()].filter((name) => !named.has(name)).sort();
  const since = `since the last release (${base.slice(0, 10)}, the last commit that changed ${LAST_RELEASE})`;

  if (missing.length === 0) {
    console.log(`changesets: ok, ${changed.size} published package(s) changed ${since}, each named by a pending changeset (${changesets.length} in .changeset/)`);
    return;
  }
  const listed = missing.map((name) => {
    const files = changed.get(name);
    return `  ${name}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
  });
  console.error(
    [
      `changesets: these published packages changed ${since}, but no changeset in .changeset/ names them:`,
      ...listed,
      '',
      'Add a changeset: run `npx changeset` and pick them, or write .changeset/<a-short-name>.md:',
      '',
      '---',
      ...missing.map((name) => `"${name}": patch`),
      '---',
      '',
      'One or two sentences for the changelog: what changed, for whoever installs these packages.',
      '',
      'patch: a fix; minor: something new that keeps working as before; major: a change users must act on.',
      'The container image (deploy/Dockerfile) carries the CLI\'s version: a change to it is a change to "verify-hub".',
    ].join('\n'),
  );
  process.exitCode = 1;
}

try {
  main();
} catch (error) {
  console.error(`changesets: ${error.message}`);
  process.exitCode = 2;
}
