#!/usr/bin/env node
// Extracts from Klaviyo's published OpenAPI description (github klaviyo/openapi, openapi/stable.json,
// MIT licence: see OPENAPI-LICENSE beside this file) only what the fake serves: the operations the
// connector calls, their request and response schemas, and every component those refer to. The whole
// description is several MB; this subset is what the fake's answers are validated against.
//
//   node test/fakes/klaviyo/extract-openapi.js <path to stable.json>
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

/** The operations the Klaviyo connector (and so the fake) uses. */
const OPERATIONS = [
  'get_accounts',
  'get_lists',
  'get_segments',
  'get_profiles',
  'get_profiles_for_list',
  'get_profiles_for_segment',
  'bulk_import_profiles',
  'get_bulk_import_profiles_job',
  'get_errors_for_bulk_import_profiles_job',
  'bulk_suppress_profiles',
  'get_bulk_suppress_profiles_job',
];

const source = process.argv[2];
if (!source) throw new Error('usage: extract-openapi.js <path to openapi/stable.json>');
const spec = JSON.parse(readFileSync(source, 'utf8'));
const components = { schemas: {}, responses: {} };
const wanted = [];

function collect(node) {
  if (Array.isArray(node)) return node.forEach(collect);
  if (!node || typeof node !== 'object') return;
  if (typeof node.$ref === 'string') wanted.push(node.$ref);
  for (const value of Object.values(node)) collect(value);
}

const paths = {};
for (const [path, item] of Object.entries(spec.paths)) {
  for (const [method, operation] of Object.entries(item)) {
    if (!OPERATIONS.includes(operation.operationId)) continue;
    const kept = {
      operationId: operation.operationId,
      'x-klaviyo-scopes': operation['x-klaviyo-scopes'],
      'x-klaviyo-ratelimit': operation['x-klaviyo-ratelimit'],
      parameters: (operation.parameters ?? []).filter((p) => ['page[size]', 'revision', 'filter', 'page[cursor]'].includes(p.name)),
      ...(operation.requestBody ? { requestBody: operation.requestBody } : {}),
      responses: operation.responses,
    };
    collect(kept);
    (paths[path] ??= {})[method] = kept;
  }
}
const missing = OPERATIONS.filter((id) => !Object.values(paths).some((item) => Object.values(item).some((op) => op.operationId === id)));
if (missing.length) throw new Error(`not in the description: ${missing.join(', ')}`);

while (wanted.length) {
  const ref = wanted.pop();
  const [, , kind, name] = ref.split('/');
  if (components[kind][name]) continue;
  const found = spec.components[kind][name];
  if (!found) throw new Error(`unresolved ${ref}`);
  components[kind][name] = found;
  collect(found);
}

const subset = {
  openapi: spec.openapi,
  info: { title: `${spec.info.title} (the operations verify-hub uses)`, version: spec.info.version, license: { name: 'MIT', url: 'https://github.com/klaviyo/openapi/blob/main/LICENSE' } },
  paths,
  components,
};
writeFileSync(join(__dirname, 'openapi-subset.json'), JSON.stringify(subset) + '\n');
console.log(`${Object.keys(paths).length} paths, ${Object.keys(components.schemas).length} schemas, revision ${spec.info.version}`);
