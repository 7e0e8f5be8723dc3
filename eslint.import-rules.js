/**
 * DESIGN.md §3 as lint rules: imports go one way, downward.
 *   core            imports nothing of ours
 *   engine          imports core only
 *   connectors/*    import core only; never another connector, BullMQ or Express
 *   sync-jobs       never imports the hub, the CLI or the engine
 *   webhooks-in     imports packages by their entry, never a connector's (or any package's) files
 *   the dashboard   imports no server code at run time (`import type` is erased by esbuild: allowed)
 * A relative path into another package folder is refused everywhere: it would dodge the rules above.
 * test/lint/import-rules.test.ts shows each rule firing on test/lint-fixtures/.
 */
const RULE = '@typescript-eslint/no-restricted-imports';

const PACKAGE_FOLDERS = '(core|engine|connectors|hubspot|mailchimp|file|zapier|n8n|mcp|sync-jobs|webhooks-in|cli|clients)';
/** `../../core/src/x`, `../../../connectors/file/src/y`: a relative import that climbs out of its package into another. */
const crossPackageRelative = {
  regex: `^(\\.\\./){2,}${PACKAGE_FOLDERS}(/|$)`,
  message: 'import another package by its name (@verify-hub/...), not by a relative path into its folder (DESIGN.md §3)',
};
/** Our packages' names, whatever their scope. */
const OUR_PACKAGES = ['@verify-hub/*', 'verify-hub', 'verify-hub/*', 'verify-hub-zapier', 'verify-hub-zapier/*', 'n8n-nodes-verify-hub', 'n8n-nodes-verify-hub/*'];
const packageFiles = {
  group: ['@verify-hub/*/src', '@verify-hub/*/src/**', '@verify-hub/*/dist', '@verify-hub/*/dist/**'],
  message: "import a package by its entry (@verify-hub/<name>), not its files: what it does not export is its own (DESIGN.md §3)",
};

const restrict = (patterns, paths = []) => ({ rules: { [RULE]: ['error', { paths, patterns: [...patterns, crossPackageRelative] }] } });

module.exports.importRules = [
  {
    files: ['core/src/**/*.ts'],
    ...restrict([{ group: OUR_PACKAGES, message: 'core imports nothing of ours: every other package builds on it (DESIGN.md §3)' }]),
  },
  {
    files: ['engine/src/**/*.ts'],
    ...restrict([packageFiles, { group: [...OUR_PACKAGES, '!@verify-hub/core'], message: 'the engine imports core only (DESIGN.md §3)' }]),
  },
  {
    files: ['connectors/*/src/**/*.ts'],
    ...restrict(
      [packageFiles, { group: [...OUR_PACKAGES, '!@verify-hub/core'], message: 'a connector imports core only: never another connector, sync-jobs, the hub or the CLI (DESIGN.md §3)' }],
      [
        { name: 'bullmq', message: 'a connector never imports BullMQ: queues are sync-jobs\' (DESIGN.md §3)' },
        { name: 'express', message: 'a connector never imports Express: HTTP serving is the hub\'s (DESIGN.md §3)' },
      ],
    ),
  },
  {
    files: ['sync-jobs/src/**/*.ts'],
    ...restrict([
      packageFiles,
      { group: ['@verify-hub/webhooks-in', '@verify-hub/webhooks-in/*', '@verify-hub/engine', '@verify-hub/engine/*', 'verify-hub', 'verify-hub/*'], message: 'sync-jobs imports core and the connectors only: the hub and the CLI build on it (DESIGN.md §3)' },
    ]),
  },
  {
    files: ['webhooks-in/src/**/*.ts'],
    ...restrict([
      packageFiles,
      { group: ['@verify-hub/connector-*/*'], message: "the hub imports a connector by its package entry only, never its internals (DESIGN.md §3)" },
      { group: ['@verify-hub/engine', '@verify-hub/engine/*', 'verify-hub', 'verify-hub/*'], message: 'the hub never imports the engine or the CLI: the CLI wires them (DESIGN.md §3)' },
    ]),
  },
  {
    files: ['webhooks-in/dashboard/**/*.ts', 'webhooks-in/dashboard/**/*.tsx'],
    ...restrict([
      { group: OUR_PACKAGES, allowTypeImports: true, message: 'the dashboard is a browser bundle: it imports server packages with `import type` only' },
      { regex: '^(\\.\\./)+src(/|$)', allowTypeImports: true, message: "the dashboard is a browser bundle: it imports the server's files with `import type` only" },
    ]),
  },
];
