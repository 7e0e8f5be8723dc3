#!/usr/bin/env node
'use strict';
// CI's changeset check (.ci/run, `npm run changeset:check`): every change to a published package since
// the last release brings a changeset (.changeset/*.md) naming that package, so its next version and
// CHANGELOG.md say what changed.
// - The last release is the newest commit that changed .changeset/last-release.json (written only by
//   `npm run release:version`): it needs the history (any clone but a shallow one), not tags or a branch.
// - Changed: the files that differ between that commit and the working tree (commits since then,
//   uncommitted edits, new untracked files), except CHANGELOG.md files (the release writes them).
// - A file belongs to the workspace package whose folder holds it; the container image's own files
//   (IMAGE_FILES) belong to the CLI, whose version the image carries.
// - Brings: a pending changeset naming the package was committed in, or after (a descendant of), the
//   newest commit that changed the package's files; an uncommitted change needs an uncommitted changeset.
//   So a changeset written for one change does not cover the next change to the same package.
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
      return { file: `.changeset/${file}`, names: Object.keys(YAML.parse(front[1]) ?? {}) };
    });
}

function changedFiles(base) {
  const tracked = git('diff', '--name-only', '--no-renames', base).split('\n');
  const untracked = git('ls-files', '--others', '--exclude-standard').split('\n');
  return [...new Set([...tracked, ...untracked])].filter((f) => f && path.basename(f) !== 'CHANGELOG.md');
}

/** Paths with uncommitted changes or untracked. */
function dirtyPaths() {
  return new Set([...git('diff', '--name-only', '--no-renames', 'HEAD').split('\n'), ...git('ls-files', '--others', '--exclude-standard').split('\n')].filter(Boolean));
}

/** The newest commit in base..HEAD that changed any of `files`; 'dirty' if one of them is uncommitted. */
function lastChange(base, files, dirty) {
  if (files.some((f) => dirty.has(f))) return 'dirty';
  return git('log', '-1', '--format=%H', `${base}..HEAD`, '--', ...files).trim();
}

/** Whether a changeset last written in `written` (a commit, or 'dirty') came with or after `change`. */
function cameAfter(change, written) {
  if (written === 'dirty') return true;
  if (change === 'dirty' || !written) return false;
  try {
    git('merge-base', '--is-ancestor', change, written);
    return true;
  } catch {
    return false;
  }
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
  const dirty = dirtyPaths();
  const changesets = pendingChangesets().map((c) => ({ ...c, written: dirty.has(c.file) ? 'dirty' : git('log', '-1', '--format=%H', '--', c.file).trim() }));
  const since = `since the last release (${base.slice(0, 10)}, the last commit that changed ${LAST_RELEASE})`;
  const uncovered = [];
  for (const [name, files] of [...changed.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const change = lastChange(base, files, dirty);
    const naming = changesets.filter((c) => c.names.includes(name));
    if (naming.some((c) => cameAfter(change, c.written))) continue;
    const when = change === 'dirty' ? 'uncommitted' : `last changed in ${change.slice(0, 10)}`;
    const why = naming.length === 0 ? 'no pending changeset names it' : `its changesets (${naming.map((c) => c.file).join(', ')}) are older than that change`;
    uncovered.push({ name, line: `  ${name}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? ` and ${files.length - 3} more` : ''} (${when}; ${why})` });
  }

  if (uncovered.length === 0) {
    console.log(`changesets: ok, ${changed.size} published package(s) changed ${since}, each change with its changeset (${changesets.length} in .changeset/)`);
    return;
  }
  const missing = uncovered.map((u) => u.name);
  const listed = uncovered.map((u) => u.line);
  console.error(
    [
      `changesets: these published packages changed ${since} without a changeset for the change:`,
      ...listed,
      '',
      'Add a changeset, with the change or after it: run `npx changeset` and pick them, or write .changeset/<a-short-name>.md:',
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
