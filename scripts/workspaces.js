'use strict';
// The repository's npm workspaces (root package.json "workspaces": folders, or "folder/*"), read the
// way npm reads them, for the release scripts: [{ dir, name, version, private, manifest }].
const fs = require('node:fs');
const path = require('node:path');

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function workspaces(root) {
  const dirs = readJson(path.join(root, 'package.json')).workspaces.flatMap((entry) => {
    if (!entry.endsWith('/*')) return [entry];
    const parent = entry.slice(0, -2);
    return fs.readdirSync(path.join(root, parent), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${parent}/${d.name}`);
  });
  return dirs
    .filter((dir) => fs.existsSync(path.join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = readJson(path.join(root, dir, 'package.json'));
      return { dir, name: manifest.name, version: manifest.version, private: manifest.private === true, manifest };
    });
}

module.exports = { workspaces, readJson };
