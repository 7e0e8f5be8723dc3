#!/usr/bin/env node
'use strict';
// Build step after tsc: copies what tsc does not emit (icons, codex files) from src/ to dist/ at the
// same relative paths, where n8n looks for them next to the compiled node and credentials.
// Usage: node scripts/copy-assets.js [outDir]   (default dist/, tests build into a temporary dir)
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const src = path.join(root, 'src');
const dist = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const ASSET = /\.(svg|png|node\.json)$/;

function copyAssets(dir) {
  let copied = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copied += copyAssets(from);
    else if (ASSET.test(entry.name)) {
      const to = path.join(dist, path.relative(src, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
      copied++;
    }
  }
  return copied;
}

console.log(`copied ${copyAssets(src)} asset(s) to ${path.relative(process.cwd(), dist) || '.'}`);
