/**
 * Notes that a run's processes (jest's workers and its parent) leave for the run's end: one JSON object a
 * line, appended to a file of the run's folder whose path the environment variable `name` holds (set by
 * the global set-up). Without it (a process outside a run) nothing is noted and nothing is read.
 */
const { appendFileSync, readFileSync } = require('node:fs');

function appendRunNote(name, note) {
  const file = process.env[name];
  if (file) appendFileSync(file, `${JSON.stringify(note)}\n`);
}

function readRunNotes(name) {
  let text = '';
  try {
    text = readFileSync(process.env[name] ?? '', 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

module.exports = { appendRunNote, readRunNotes };
