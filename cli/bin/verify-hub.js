#!/usr/bin/env node
'use strict';
// Runs the built CLI when there is one; in a source checkout (no `npm run build` yet) it runs the
// TypeScript sources directly, so `npx verify-hub ...` works right after `npm install`.
const path = require('node:path');
const fs = require('node:fs');

const built = path.join(__dirname, '..', 'dist', 'main.js');
if (fs.existsSync(built)) {
  require(built).main(process.argv);
} else {
  const root = path.join(__dirname, '..', '..');
  process.env.TS_NODE_PROJECT = path.join(root, 'tsconfig.json');
  process.env.TS_NODE_TRANSPILE_ONLY = 'true';
  require('ts-node/register/transpile-only');
  require('tsconfig-paths/register');
  require(path.join(__dirname, '..', 'src', 'main.ts')).main(process.argv);
}
