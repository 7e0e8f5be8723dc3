#!/usr/bin/env node
'use strict';
// `npm run new-platform -- <id> [--label "Acme CRM"]`: a new platform, ready to build, lint, typecheck
// and test, in connectors/<id>/ from scripts/platform-template/ (docs/adding-a-platform.md). The one
// file it changes outside that folder is cli/package.json: one dependency line, which installs the
// platform (the CLI loads every @verify-hub/connector-* dependency's module). Then `npm install`.
// `npm run new-platform -- --remove <id>` takes a platform made this way out again (not one in git).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TEMPLATE = path.join(__dirname, 'platform-template');
const CLI_MANIFEST = path.join(ROOT, 'cli', 'package.json');
/** As core's definePlatform checks it. */
const PLATFORM_ID = /^[a-z][a-z0-9-]{0,39}$/;

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const words = (id) => id.split('-').filter(Boolean);
const capital = (word) => word[0].toUpperCase() + word.slice(1);

function fail(message) {
  console.error(`new-platform: ${message}`);
  process.exit(2);
}

/** The names the template's placeholders stand for. */
function namesOf(id, label) {
  return {
    __idCamel__: words(id).map((word, i) => (i === 0 ? word : capital(word))).join(''),
    __Id__: words(id).map(capital).join(''),
    __ENV__: id.toUpperCase().replace(/-/g, '_'),
    __label__: label,
    __version__: readJson(path.join(ROOT, 'core', 'package.json')).version,
    __zodVersion__: readJson(path.join(ROOT, 'core', 'package.json')).dependencies.zod,
    __id__: id,
  };
}

const fill = (text, names) => Object.entries(names).reduce((out, [token, value]) => out.split(token).join(value), text);

/** Copies the template into `target`, placeholders filled in file names and contents, `.tmpl` dropped. */
function copyTemplate(from, target, names) {
  fs.mkdirSync(target, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const destination = path.join(target, fill(entry.name, names).replace(/\.tmpl$/, ''));
    if (entry.isDirectory()) copyTemplate(source, destination, names);
    else fs.writeFileSync(destination, fill(fs.readFileSync(source, 'utf8'), names));
  }
}

/** Adds or removes the platform's dependency line in cli/package.json, dependencies kept in name order. */
function setCliDependency(packageName, version) {
  const manifest = readJson(CLI_MANIFEST);
  const dependencies = { ...manifest.dependencies };
  if (version === undefined) delete dependencies[packageName];
  else dependencies[packageName] = version;
  manifest.dependencies = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeJson(CLI_MANIFEST, manifest);
}

function create(id, label) {
  if (!PLATFORM_ID.test(id)) fail(`"${id}" cannot be a platform id: lower-case letters, digits and dashes, starting with a letter (at most 40)`);
  const target = path.join(ROOT, 'connectors', id);
  if (fs.existsSync(target)) fail(`connectors/${id} already exists`);
  if (label !== undefined && !/^[A-Za-z0-9][A-Za-z0-9 .&+-]{0,59}$/.test(label)) fail('--label: letters, digits, spaces and . & + - (at most 60), starting with a letter or digit');
  const names = namesOf(id, label ?? words(id).map(capital).join(' '));
  copyTemplate(TEMPLATE, target, names);
  // Every published package carries the project's licence (test/release/published-files.test.ts).
  fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(target, 'LICENSE'));
  setCliDependency(`@verify-hub/connector-${id}`, names.__version__);
  console.log(`Made connectors/${id}/ (${names.__label__}) and installed it in cli/package.json. Next:`);
  console.log('  npm install');
  console.log(`  npx jest connectors/${id}        # its test, through verify-hub serve, against its fake`);
  console.log('  npm run build && npm run typecheck && npm run lint');
  console.log('Then make src/api.ts and test/fake-*.ts speak the real API (docs/adding-a-platform.md).');
}

function remove(id) {
  if (!PLATFORM_ID.test(id)) fail(`"${id}" is not a platform id`);
  const folder = `connectors/${id}`;
  const tracked = execFileSync('git', ['ls-files', folder], { cwd: ROOT, encoding: 'utf8' }).trim();
  if (tracked) fail(`${folder} is in git: remove a committed platform with git, not with this`);
  fs.rmSync(path.join(ROOT, folder), { recursive: true, force: true });
  fs.rmSync(path.join(ROOT, 'node_modules', '@verify-hub', `connector-${id}`), { recursive: true, force: true });
  setCliDependency(`@verify-hub/connector-${id}`, undefined);
  console.log(`Removed ${folder} and its line in cli/package.json; run \`npm install\` to update package-lock.json.`);
}

function main(args) {
  const at = (flag) => args.indexOf(flag);
  if (at('--remove') >= 0) return remove(args[at('--remove') + 1] ?? '');
  const label = at('--label') >= 0 ? args[at('--label') + 1] : undefined;
  const id = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--label');
  if (!id) fail('usage: npm run new-platform -- <id> [--label "Acme CRM"] | --remove <id>');
  create(id, label);
}

main(process.argv.slice(2));
