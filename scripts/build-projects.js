#!/usr/bin/env node
'use strict';
// `npm run build`'s TypeScript step: `tsc -b` over every workspace that has a tsconfig.json (root
// package.json "workspaces", connectors/* included), so an installed platform is built without being
// listed anywhere; each project's own references order the build.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { workspaces } = require('./workspaces');

const root = path.resolve(__dirname, '..');
const projects = workspaces(root)
  .map((workspace) => workspace.dir)
  .filter((dir) => fs.existsSync(path.join(root, dir, 'tsconfig.json')));
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', ...projects, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
