#!/usr/bin/env node
'use strict';
// Checks what `n8n execute --rawOutput` printed for the e2e workflow (see e2e-real-n8n.sh) and what
// the fake engine saw. Prints each check; exits 1 on the first that fails.
const fs = require('node:fs');

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}
function check(condition, message) {
  if (!condition) fail(message);
  console.log(`ok   ${message}`);
}

const [outFile, requestsFile] = process.argv.slice(2);
const text = fs.readFileSync(outFile, 'utf8');
// n8n's log lines come before and after the pretty-printed run: it opens with "{" and closes with "}"
// at the start of a line.
const start = text.search(/^\{/m);
const end = start < 0 ? -1 : text.slice(start).search(/^\}/m);
if (start < 0 || end < 0) fail(`no JSON in the output:\n${text.slice(0, 2000)}`);
const run = JSON.parse(text.slice(start, start + end + 1));
const runData = run?.data?.resultData?.runData ?? run?.resultData?.runData ?? run?.runData;
if (!runData) fail(`no runData in the output (top-level keys: ${Object.keys(run).join(', ')})`);
const nodeRuns = runData['Email Verification'];
if (!nodeRuns?.[0]) fail(`the Email Verification node did not run (nodes run: ${Object.keys(runData).join(', ')})`);
if (nodeRuns[0].error) fail(`the node failed: ${JSON.stringify(nodeRuns[0].error).slice(0, 1000)}`);
const outputs = nodeRuns[0].data.main;

const risks = ['safe', 'risky', 'invalid', 'unknown'];
// On Error "Continue (using error output)": n8n adds the error output after the four risk outputs.
check(outputs.length === 5, `four risk outputs (Route by Risk) and the error output (got ${outputs.length})`);
const pairedOf = (it) => (Array.isArray(it.pairedItem) ? it.pairedItem[0]?.item : it.pairedItem?.item);
risks.forEach((risk, i) => {
  const items = outputs[i] ?? [];
  const shown = items.map((it) => `${it.json.emails} -> ${it.json.risk} ${it.json.score} ${it.json.reason} paired ${JSON.stringify(it.pairedItem)}`);
  console.log(`     output ${risk}: ${shown.join('; ') || '(none)'}`);
  check(items.every((it) => it.json.risk === risk && it.json.error === undefined), `every item on the ${risk} output has risk ${risk}, none an error`);
});
const all = outputs.slice(0, 4).flat();
check(all.length === 6, `six verified items out for the six addresses in (got ${all.length})`);
const paired = all.map(pairedOf);
check(JSON.stringify([...paired].sort()) === '[0,1,2,3,4,5]', 'pairedItem on every verified item, covering inputs 0..5 once each');
check(outputs[0].length === 3, 'safe: ada, busy (after a 429) and ada@EXAMPLE.com (a duplicate)');
check(all.every((it) => typeof it.json.emails === 'string' && typeof it.json.score === 'number' && it.json.checks), 'results merged into the items');
check(all.every((it) => it.json.email === it.json.emails), "each result's email is its own item's spelling");

// n8n replaces the json of an item that carries an error with { error: <message> } (n8n-core's
// normalizeNodeErrors): the item's own fields are gone, and its pairedItem is how a workflow gets the row back.
const errors = outputs[4] ?? [];
console.log(`     error output: ${errors.map((it) => `${JSON.stringify(it.json)} paired ${JSON.stringify(it.pairedItem)}`).join('; ') || '(none)'}`);
check(JSON.stringify(errors.map(pairedOf)) === '[6,7,8]', 'the three bad items (12345, true, "") on the error output, pairedItem 6, 7, 8');
const expected = ['Email must be text, got a number (12345)', 'Email must be text, got true (a boolean)', 'Item 8 has no email'].map((error) => ({ error }));
check(JSON.stringify(errors.map((it) => it.json)) === JSON.stringify(expected), `each item's json is exactly its error message (${expected.map((e) => JSON.stringify(e)).join(' / ')})`);

const requests = JSON.parse(fs.readFileSync(requestsFile, 'utf8'));
const calls = (email) => requests.filter((r) => r.email === email).length;
check(requests.length > 0 && requests.every((r) => r.keyMatched), `the credential's X-API-Key on all ${requests.length} engine requests`);
check(requests.every((r) => !/key/i.test(r.url)), 'no key in any request URL');
check(calls('busy@example.com') === 2, 'busy@example.com: 429, waited for X-RateLimit-Reset, verified on the second call');
check(calls('ada@example.com') === 1, 'ada@example.com verified once for two items (deduplicated)');
console.log('e2e: all checks passed');
