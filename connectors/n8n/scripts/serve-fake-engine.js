#!/usr/bin/env node
'use strict';
// The fake engine (test/fakes/engine) for e2e-real-n8n.sh, run from the repository root under ts-node.
// Writes its URL to $URL_FILE once listening; on SIGTERM writes the requests it saw to $LOG_FILE.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { FakeEngine } = require(join(process.cwd(), 'test', 'fakes', 'engine', 'fake-engine.ts'));

const engine = new FakeEngine({ apiKey: process.env.E2E_KEY });
// One address is rate limited first: the node must wait for the reset and try again.
engine.script('busy@example.com', { kind: 'rate-limited', resetInMs: 1500, form: 'seconds-from-now' }, { kind: 'result', risk: 'safe' });
engine.start().then((url) => writeFileSync(process.env.URL_FILE, url));
process.on('SIGTERM', () => {
  writeFileSync(process.env.LOG_FILE, JSON.stringify(engine.requests));
  engine.stop().then(() => process.exit(0));
});
