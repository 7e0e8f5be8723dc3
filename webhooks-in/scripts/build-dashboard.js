#!/usr/bin/env node
// Bundles the web dashboard into dist/dashboard/ (served by the hub at /). Runs after `tsc -b`,
// which compiled the bundling code this reuses, so the build and the hub's in-memory bundle agree.
// THIRD-PARTY-NOTICES.md beside it: the npm packages compiled into app.js (Preact), with their licences.
const { join } = require('node:path');
const { buildDashboard } = require('../dist/dashboard-bundle');
const { writeNotices } = require('../../scripts/third-party-notices');

const root = join(__dirname, '..');

buildDashboard({ sourceDir: join(root, 'dashboard'), outDir: join(root, 'dist', 'dashboard') }).then(
  ({ outDir, bytes, metafile }) => {
    const sizes = Object.entries(bytes).map(([name, size]) => `${name} ${(size / 1024).toFixed(1)} KiB`);
    const notices = writeNotices(metafile, join(outDir, 'THIRD-PARTY-NOTICES.md'), "The hub's web dashboard (dist/dashboard/app.js)");
    console.log(`dashboard: ${sizes.join(', ')} -> ${outDir}; notices for ${notices.join(', ')}`);
  },
  (error) => {
    // esbuild's errors carry file:line; print them, not a stack.
    for (const message of error.errors ?? []) {
      const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column}: ` : '';
      console.error(`${where}${message.text}`);
    }
    console.error(`dashboard build failed: ${error.message}`);
    process.exitCode = 1;
  },
);
