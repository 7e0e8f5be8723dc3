#!/usr/bin/env node
'use strict';
// The image's HEALTHCHECK, for every role: finds the running `verify-hub` process (PID 1, or a child of
// an init such as `docker run --init`), reads its command and asks that role's own port for /healthz:
//   serve  -> --port, else PORT (8080)                   engine -> --port, else ENGINE_PORT (8081)
//   worker -> --health-port, else VERIFY_HUB_WORKER_HEALTH_PORT (the image sets 8082)
// Exit 0 healthy, 1 not (Docker's contract). Other commands (clean, mcp, ...) serve nothing: healthy while running.
/* global fetch, AbortSignal */
const { readdirSync, readFileSync } = require('node:fs');

const DEFAULT_PORTS = { serve: 8080, engine: 8081 };

/** The value of `--name N` or `--name=N` in the command's arguments. */
function flag(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** Which URL to probe for a `verify-hub` command line (the arguments after verify-hub.js), or null when the command serves none. */
function probeTarget(args, env) {
  const command = args.find((arg) => !arg.startsWith('-'));
  let port;
  let host;
  if (command === 'serve') {
    port = flag(args, '--port') ?? env.PORT ?? DEFAULT_PORTS.serve;
    host = flag(args, '--host') ?? env.HUB_HOST;
  } else if (command === 'engine' && !args.includes('keys')) {
    port = flag(args, '--port') ?? env.ENGINE_PORT ?? DEFAULT_PORTS.engine;
    host = flag(args, '--host') ?? env.ENGINE_HOST;
  } else if (command === 'worker') {
    port = flag(args, '--health-port') ?? env.VERIFY_HUB_WORKER_HEALTH_PORT;
    host = env.HUB_HOST;
    if (port === undefined || port === '') return null;
  } else {
    return null;
  }
  // A wildcard address answers on loopback; a specific one only on itself.
  const probeHost = !host || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return { command, url: `http://${probeHost.includes(':') ? `[${probeHost}]` : probeHost}:${port}/healthz` };
}

/** The arguments after `verify-hub.js` of the first process running it, or null. */
function findVerifyHubArgs(procDir = '/proc') {
  const pids = readdirSync(procDir).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(a) - Number(b));
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    let argv;
    try {
      argv = readFileSync(`${procDir}/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      continue; // the process ended meanwhile
    }
    const at = argv.findIndex((arg) => arg.endsWith('verify-hub.js'));
    if (at >= 0) return argv.slice(at + 1);
  }
  return null;
}

async function main() {
  const args = findVerifyHubArgs();
  if (!args) {
    console.error('healthcheck: no verify-hub process is running');
    return 1;
  }
  const target = probeTarget(args, process.env);
  if (!target) return 0;
  try {
    const response = await fetch(target.url, { signal: AbortSignal.timeout(2500) });
    if (!response.ok) console.error(`healthcheck: ${target.command}: ${target.url} answered ${response.status}`);
    return response.ok ? 0 : 1;
  } catch (error) {
    console.error(`healthcheck: ${target.command}: ${target.url} does not answer (${error.cause?.code ?? error.name})`);
    return 1;
  }
}

if (require.main === module) main().then((code) => process.exit(code));

module.exports = { probeTarget, findVerifyHubArgs };
