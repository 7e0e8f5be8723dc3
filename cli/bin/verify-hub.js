#!/usr/bin/env node
'use strict';
// Runs the built CLI (dist/, compiled JavaScript: the published package, and a checkout after
// `npm run build`). Without dist/ (a fresh checkout), or with VERIFY_HUB_FROM_SOURCE=1 (development:
// the sources as they are now, not the last build), it runs the TypeScript sources through ts-node,
// which is slower to start.
const path = require('node:path');
const fs = require('node:fs');

const built = path.join(__dirname, '..', 'dist', 'main.js');
// The bin's own switch, not configuration: taken out so the configuration check does not refuse it.
const fromSource = process.env.VERIFY_HUB_FROM_SOURCE === '1';
delete process.env.VERIFY_HUB_FROM_SOURCE;
if (!fromSource && fs.existsSync(built)) {
  require(built).main(process.argv);
} else {
  const root = path.join(__dirname, '..', '..');
  process.env.TS_NODE_PROJECT = path.join(root, 'tsconfig.json');
  process.env.TS_NODE_TRANSPILE_ONLY = 'true';
  require('ts-node/register/transpile-only');
  require('tsconfig-paths/register');
  require(path.join(__dirname, '..', 'src', 'main.ts')).main(process.argv);
}
