'use strict';
// THIRD-PARTY-NOTICES for a bundle: the npm packages esbuild compiled into it (their code then ships
// without their package folder, so their licence texts must travel with it, as MIT, ISC, BSD and
// Apache-2.0 ask). Used by the builds that bundle dependencies (connectors/n8n, the dashboard).
const fs = require('node:fs');
const path = require('node:path');

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\.(md|txt|markdown))?$/i;

/** The package folder (the one holding package.json right under node_modules) of a bundled input. */
function packageDirOf(input, cwd) {
  const parts = path.resolve(cwd, input).split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const depth = parts[at + 1]?.startsWith('@') ? 3 : 2;
  return parts.slice(0, at + depth).join(path.sep);
}

/**
 * The packages with code in the bundle's outputs (inputs esbuild tree-shook away entirely are not
 * shipped), sorted by name: { name, version, license, texts: [{ file, text }] }.
 */
function bundledPackages(metafile, cwd = process.cwd()) {
  const dirs = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const dir = bytesInOutput > 0 ? packageDirOf(input, cwd) : undefined;
      if (dir) dirs.add(dir);
    }
  }
  return [...dirs]
    .map((dir) => {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
      const files = fs.readdirSync(dir).filter((f) => LICENCE_FILE.test(f)).sort();
      return { name: pkg.name, version: pkg.version, license: pkg.license ?? 'UNKNOWN', texts: files.map((file) => ({ file, text: fs.readFileSync(path.join(dir, file), 'utf8').trim() })) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The notices file's text; a package without a licence file fails the build (nothing to ship with it). */
function noticesText(what, packages) {
  const missing = packages.filter((p) => p.texts.length === 0).map((p) => p.name);
  if (missing.length > 0) throw new Error(`third-party notices: no licence file in ${missing.join(', ')} (bundled into ${what})`);
  const sections = packages.map((p) => [`## ${p.name}@${p.version} (${p.license})`, ...p.texts.map((t) => `${t.file}:\n\n\`\`\`\n${t.text}\n\`\`\``)].join('\n\n'));
  return [`# Third-party notices`, `${what} includes code from these npm packages, under their licences:`, ...sections].join('\n\n') + '\n';
}

/** Writes `outFile` for the bundle described by `metafile`; returns the packages' names. */
function writeNotices(metafile, outFile, what, cwd = process.cwd()) {
  const packages = bundledPackages(metafile, cwd);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, noticesText(what, packages));
  return packages.map((p) => p.name);
}

module.exports = { bundledPackages, noticesText, writeNotices };
