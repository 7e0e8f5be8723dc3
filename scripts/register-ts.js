/**
 * `node -r scripts/register-ts.js` (or required first in a worker thread): runs TypeScript from the
 * checkout (a test fixture, a thread of the CLI run from source) and the workspace sources it imports,
 * mapped by the root tsconfig's `paths`, transpiled by swc as jest does. ts-node ran TypeScript's own
 * transpiler on every module, about 4 s of CPU per process or thread; swc takes a fraction of that.
 * Type checking is `npm run typecheck`'s job.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');
const tsconfigPaths = require('tsconfig-paths');

const ROOT = join(__dirname, '..');
const loaded = tsconfigPaths.loadConfig(ROOT);
if (loaded.resultType !== 'success') throw new Error(`register-ts: cannot read ${ROOT}/tsconfig.json: ${loaded.message}`);
tsconfigPaths.register({ baseUrl: loaded.absoluteBaseUrl, paths: loaded.paths });

function compile(module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: { parser: { syntax: 'typescript', tsx: filename.endsWith('.tsx') }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
}

Module._extensions['.ts'] = compile;
Module._extensions['.tsx'] = compile;
// Stack traces point at the TypeScript lines.
process.setSourceMapsEnabled(true);
